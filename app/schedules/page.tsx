import { MaintenanceControl } from "@/components/schedules/maintenance-control";
import { NewScheduleLink } from "@/components/schedules/new-schedule-link";
import { Suspense } from "react";
import { SchedulesList } from "@/components/schedules/schedules-list";
import { YourTeams } from "@/components/teams/your-teams";

export default function SchedulesPage() {
  return (
    <section>
      <div className="row page-head">
        <h1>Schedules</h1>
        <span className="spacer" />
        <MaintenanceControl />
        <NewScheduleLink />
      </div>
      <p className="muted">
        What is supposed to run, when it runs next, and how the recent runs went. Times show the schedule&apos;s zone and yours.
      </p>
      <YourTeams />
      <Suspense fallback={<p className="muted">Loading schedules…</p>}>
        <SchedulesList />
      </Suspense>
    </section>
  );
}
