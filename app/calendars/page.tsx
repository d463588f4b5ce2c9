import { CalendarsList } from "@/components/calendars/calendars-list";
import { NewCalendarLink } from "@/components/calendars/new-calendar-link";

export default function CalendarsPage() {
  return (
    <section>
      <div className="row page-head">
        <h1>Calendars</h1>
        <span className="spacer" />
        <NewCalendarLink />
      </div>
      <p className="muted">
        Business calendars and blackout windows: the days, weekdays and times they block. A schedule that follows one skips a blocked fire
        or shifts it to the previous or next allowed time; every skipped or moved fire is recorded with its reason.
      </p>
      <CalendarsList />
    </section>
  );
}
