// What the console's change stream (GET /api/changes) names when something changed; the console's pages map each
// topic to the queries that show it (components/ui/live-updates.ts).
//   runs      — a run's state or times, or a schedule's definition (the console version, console-version.ts)
//   schedules — a schedule's definition or pause, or a maintenance window (20261205500000), or a pause or maintenance
//               window reaching its `until` (clock-boundaries.ts); a run alone never names it
//   attention — the header's last-hour counts moved on with the clock alone: a run slid out of the window
//   alerts    — an alert opened, acknowledged, seen again or resolved
//   workers   — a worker started, stopped, changed state or went silent
//   health    — the database went down or came back, or the fleet gained or lost its last live worker
export const CHANGE_TOPICS = ["runs", "schedules", "attention", "alerts", "workers", "health"] as const;
export type ChangeTopic = (typeof CHANGE_TOPICS)[number];
