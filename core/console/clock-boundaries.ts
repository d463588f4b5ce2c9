// What the console shows that changes with the clock alone, with no row written: the header's "last hour" counts
// drop a run when its moment slides out of the window, a pause whose `until` passes is over for every reader
// (paused.ts) before the planner's auto-resume writes anything (and with no worker running, nothing ever does), a
// maintenance window whose `until` passes is no longer shown. (A run becoming missed or zombie is written, by the
// planner's misfire sweep and the reaper, and a late start is written when the run starts.)
//
// Each fragment below is a short text naming the NEXT such instant still ahead (or the oldest moment still inside
// a window): when the database clock passes it, the text changes. The change feed reads them with the change
// signatures each tick (read-change-signatures.ts), so the right topic is named within a tick of the boundary, and
// the conditional reads put them in their ETag (console-version.ts), so the refetch that follows is not a 304.
// Each is a min() over an index range (runs_trouble_updated_idx, runs_late_started_idx, the schedules' paused_until
// index, the handful of open maintenance windows): the first index entry, not a read of the rows.
import { LATE_AFTER_MS } from "../runs/lateness";

/** The header's window (GET /api/overview, getRunsOverview's default). */
export const ATTENTION_WINDOW_MINUTES = 60;

export type ClockPart = "attention" | "pauses";

// statement_timestamp(), not clock_timestamp(): a volatile bound cannot be an index condition (the scan would start
// at the index's oldest entry and filter its way up); the statement's start is the same instant to a millisecond.
const NOW = "statement_timestamp()";
/** The start of the header's window, as an index condition. */
export const ATTENTION_SINCE_SQL = `${NOW} - make_interval(mins => ${ATTENTION_WINDOW_MINUTES})`;
const since = ATTENTION_SINCE_SQL;

export const CLOCK_SQL: Record<ClockPart, string> = {
  // The oldest troubled run and the oldest late start still counted by the header (overview.ts): when the clock
  // passes its moment + the window, a count drops. Late as a superset (lateness > LATE_AFTER_MS, the partial index's
  // predicate; jitter only raises the bar): a start inside its jitter window that leaves makes one needless refetch, never a missed one.
  attention: `coalesce((SELECT min(r.updated_at) FROM runs r
                         WHERE r.state IN ('missed', 'hollow', 'zombie', 'failed', 'timed_out') AND r.updated_at >= ${since})::text, '')
              || '/' || coalesce((SELECT min(r.started_at) FROM runs r WHERE r.lateness_ms > ${LATE_AFTER_MS} AND r.started_at >= ${since})::text, '')`,
  // The next pause and the next maintenance window to end by their `until`.
  pauses: `coalesce((SELECT min(s.paused_until) FROM schedules s
                      WHERE s.paused_until > ${NOW} AND s.paused_at IS NOT NULL AND s.deleted_at IS NULL)::text, '')
           || '/' || coalesce((SELECT min(w.until) FROM maintenance_windows w WHERE w.ended_at IS NULL AND w.until > ${NOW})::text, '')`,
};
