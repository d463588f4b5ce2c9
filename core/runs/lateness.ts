// The one rule for "late", in its two forms side by side: isLate/classifyLateness for TypeScript (the worker,
// the API and the console's components) and lateSql for every SQL count and filter. lateness.db.test.ts
// checks the two agree over a table of cases.
//
// THE RULE: a run is late when its start lateness (started − planned, database clock) is more than the
// schedule's start jitter window plus LATE_AFTER_MS. A start inside the jitter window was delayed on purpose
// (the planner spread fires due at the same second); the tolerance absorbs ordinary dispatch delay. A run that
// has not started has no lateness and is neither late nor on time.
//
// Not this rule: the "late" alert, which fires on a schedule's own objectives (latenessMaxMs, latenessP95SloMs;
// core/alerts/run-alert-rules.ts and condition-alert-rules.ts) that an operator sets per schedule.

/** Tolerance beyond the schedule's start jitter window before a start counts as late. */
export const LATE_AFTER_MS = 1000;

export type LatenessClass = "on_time" | "late";

/** Lateness above this is late, for a schedule with this start jitter window (ms). */
export function lateThresholdMs(jitterMs: number | null | undefined): number {
  return (jitterMs ?? 0) + LATE_AFTER_MS;
}

export function isLate(latenessMs: number | null | undefined, jitterMs: number | null | undefined): boolean {
  return latenessMs !== null && latenessMs !== undefined && latenessMs > lateThresholdMs(jitterMs);
}

export function classifyLateness(latenessMs: number | null | undefined, jitterMs: number | null | undefined): LatenessClass | null {
  if (latenessMs === null || latenessMs === undefined) return null;
  return isLate(latenessMs, jitterMs) ? "late" : "on_time";
}

/**
 * The same rule as a SQL boolean over two column expressions (e.g. `lateSql("r.lateness_ms", "s.start_jitter_ms")`):
 * true when late, false when on time, NULL when the run has not started. Pass column names, never input.
 */
export function lateSql(latenessExpr: string, jitterExpr: string): string {
  return `(${latenessExpr} > coalesce(${jitterExpr}, 0) + ${LATE_AFTER_MS})`;
}
