// The settings a run copies from its schedule: the handler, payload, timeout, grace, attempts and concurrency group
// it runs with. A run keeps its own copy so that editing the schedule changes the runs not started yet (re-planned
// together with the edit) and never one already in flight or finished. Every statement that writes the copy — the
// planner's insert, a manual trigger's insert, the re-plan of a changed schedule — takes its columns from here.

/** Each `runs` column of the copy → the `schedules` column it is copied from. */
export const SCHEDULE_SNAPSHOT = {
  handler: "handler",
  payload: "payload",
  timeout_seconds: "timeout_seconds",
  grace_seconds: "grace_seconds",
  max_attempts: "retry_max_attempts",
  concurrency_group: "concurrency_group",
} as const;

export type SnapshotColumn = keyof typeof SCHEDULE_SNAPSHOT;

const COLUMNS = Object.keys(SCHEDULE_SNAPSHOT) as SnapshotColumn[];

/** The copied `runs` columns, for an INSERT's column list. */
export function snapshotColumns(): string {
  return COLUMNS.join(", ");
}

/**
 * The schedule's values in snapshotColumns' order, read from the `schedules` row aliased `s`. `replace` gives one
 * column other SQL (a trigger's own payload, falling back to the schedule's).
 */
export function snapshotValues(s: string, replace: Partial<Record<SnapshotColumn, string>> = {}): string {
  return COLUMNS.map((c) => replace[c] ?? `${s}.${SCHEDULE_SNAPSHOT[c]}`).join(", ");
}

/** An UPDATE's SET list copying the schedule row aliased `s` onto the run again. */
export function snapshotAssignments(s: string): string {
  return COLUMNS.map((c) => `${c} = ${s}.${SCHEDULE_SNAPSHOT[c]}`).join(", ");
}
