import { ScheduleEditor } from "@/components/schedules/schedule-editor";

export default async function EditSchedulePage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return (
    <section>
      <ScheduleEditor id={id} />
    </section>
  );
}
