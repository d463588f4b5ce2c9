import { NewScheduleLink } from "@/components/schedules/new-schedule-link";
import { SchedulesTable } from "@/components/schedules/schedules-table";

export default function SchedulesPage() {
  return (
    <section>
      <div className="row page-head">
        <h1>Schedules</h1>
        <span className="spacer" />
        <NewScheduleLink />
      </div>
      <p className="muted">
        What is supposed to run, when it runs next, and how the recent runs went. Times show the schedule&apos;s zone and yours.
      </p>
      <SchedulesTable />
    </section>
  );
}
