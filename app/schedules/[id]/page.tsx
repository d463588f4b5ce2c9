import { ScheduleDetail } from "@/components/schedules/schedule-detail";
import { ScheduleAlerts } from "@/components/alerts/schedule-alerts";
import { ScheduleLatenessChart } from "@/components/alerts/schedule-lateness-chart";
import { TriggerUrls } from "@/components/schedules/trigger-urls";
import { ScheduleForecast } from "@/components/schedules/schedule-forecast";

export default async function SchedulePage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return (
    <section>
      <ScheduleDetail id={id} />
      <ScheduleForecast scheduleId={id} />
      <ScheduleLatenessChart scheduleId={id} />
      <ScheduleAlerts scheduleId={id} />
      <TriggerUrls scheduleId={id} />
    </section>
  );
}
