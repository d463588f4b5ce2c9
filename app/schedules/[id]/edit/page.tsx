import { ScheduleEditor } from "@/components/schedules/schedule-editor";
import { RequireCapability } from "@/components/ui/use-can";

export default async function EditSchedulePage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return (
    <section>
      <RequireCapability capability="operate" what="edit schedules">
        <ScheduleEditor id={id} />
      </RequireCapability>
    </section>
  );
}
