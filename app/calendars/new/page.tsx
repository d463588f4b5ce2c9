import { CalendarEditor } from "@/components/calendars/calendar-editor";
import { RequireCapability } from "@/components/ui/use-can";

export default function NewCalendarPage() {
  return (
    <section>
      <h1>New calendar</h1>
      <RequireCapability capability="operate" what="create calendars">
        <CalendarEditor />
      </RequireCapability>
    </section>
  );
}
