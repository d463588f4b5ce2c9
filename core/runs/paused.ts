// The one rule for "is this schedule paused?", in its two forms side by side: isPaused for TypeScript and
// pausedSql for every SQL reader (the schedule record behind the list, the detail page and the API; the
// timeline; the planner's enqueue, misfire sweep and lag; the claim). paused.db.test.ts checks they agree.
//
// THE RULE: a schedule is paused while it has a pause (paused_at set) whose `until` has not come yet on the
// database clock; a pause without `until` lasts until resumed. Once `until` has passed the schedule is not
// paused for anyone, even before the planner's auto-resume has cleared the pause and settled the fires that
// fell inside it — that auto-resume picks up exactly the pauses pauseOverSql finds.

export interface PauseRecord {
  at: Date | string | null;
  until: Date | string | null;
}

const ms = (d: Date | string) => (typeof d === "string" ? Date.parse(d) : d.getTime());

/** `now` is the database clock (read with the record), never a process's wall clock. */
export function isPaused(pause: PauseRecord | null | undefined, now: Date | string): boolean {
  if (!pause || pause.at === null) return false;
  return pause.until === null || ms(pause.until) > ms(now);
}

/** The pause is still recorded but its `until` has passed: not paused, waiting for the planner's auto-resume. */
export function isPauseOver(pause: PauseRecord | null | undefined, now: Date | string): boolean {
  return !!pause && pause.at !== null && pause.until !== null && !isPaused(pause, now);
}

/**
 * The same rule as a SQL boolean over a `schedules` row alias (e.g. `pausedSql("s")`), at `now` (an SQL
 * expression on the database clock, clock_timestamp() by default). Pass an alias and an expression, never input.
 */
export function pausedSql(alias: string, now = "clock_timestamp()"): string {
  return `(${alias}.paused_at IS NOT NULL AND (${alias}.paused_until IS NULL OR ${alias}.paused_until > ${now}))`;
}

/** isPauseOver in SQL. */
export function pauseOverSql(alias: string, now = "clock_timestamp()"): string {
  return `(${alias}.paused_at IS NOT NULL AND ${alias}.paused_until <= ${now})`;
}
