import { ScheduleEditor } from "@/components/schedules/schedule-editor";

// The editor itself checks the role in the schedule's team once it has loaded the schedule (RequireCapability).
export default async function EditSchedulePage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return (
    <section>
      <ScheduleEditor id={id} />
    </section>
  );
}
