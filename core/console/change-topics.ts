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

// Per team: runs, schedules, attention and alerts concern team-owned objects (a schedule's team, an alert's schedule's),
// so the change feed names them to a subscriber only when they changed in one of the teams it sees
// (console-change-feed.ts, read-change-signatures.ts readTeamSignatures); workers and health are the fleet's, named to all.
export const TEAM_TOPICS = ["runs", "schedules", "attention", "alerts"] as const satisfies readonly ChangeTopic[];
export type TeamTopic = (typeof TEAM_TOPICS)[number];

/** The key of what every subscriber sees in a team topic (a maintenance window, an alert about no schedule). */
export const EVERY_TEAM = "*";

export function isTeamTopic(topic: ChangeTopic): topic is TeamTopic {
  return (TEAM_TOPICS as readonly ChangeTopic[]).includes(topic);
}
