import { ScheduleForm } from "@/components/schedules/schedule-form";
import { RequireCapability } from "@/components/ui/use-can";

export default function NewSchedulePage() {
  return (
    <section>
      <h1>New schedule</h1>
      <p className="muted">
        Nothing is saved until you press Create; the preview on the right shows the next fires as the server computes them.
      </p>
      <RequireCapability capability="operate" what="create schedules">
        <ScheduleForm mode="create" />
      </RequireCapability>
    </section>
  );
}
