"use client";
import { AlertSilences } from "./alert-silences";
import { AlertsTable } from "./alerts-table";

/** The schedule page's alert list: open and past alerts of this schedule, and its alert silences. */
export function ScheduleAlerts({ scheduleId }: { scheduleId: string }) {
  return (
    <section aria-labelledby="schedule-alerts-title" data-testid="schedule-alerts">
      <h2 id="schedule-alerts-title">Alerts</h2>
      <AlertSilences scheduleId={scheduleId} />
      <AlertsTable filters={{ state: "all", scheduleId }} hideSchedule />
    </section>
  );
}
