import { ScheduleDetail } from "@/components/schedules/schedule-detail";

export default async function SchedulePage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return (
    <section>
      <ScheduleDetail id={id} />
    </section>
  );
}
