// Whether this tab hears the server's change stream (GET /api/changes, change-stream.tsx), and what that changes for
// the polled queries: while it is live they refetch when their topic changes, and their refetchInterval drops to a
// slow safety net; when it is not (not yet open, failed, the tab hidden) they poll as before.
import type { ChangeTopic } from "@/core/console/change-topics";

/** While the stream is live, a query still refetches this often (time moves windows like "the last hour" on). */
export const SAFETY_NET_MS = 60_000;

let live = false;

export function isChangeStreamLive(): boolean {
  return live;
}

export function setChangeStreamLive(value: boolean): void {
  live = value;
  if (typeof document !== "undefined") document.documentElement.dataset.liveUpdates = value ? "stream" : "polling";
}

/**
 * A refetchInterval for a query the change stream keeps current: `ms` while polling, `whenLive` (the safety net by
 * default) while the stream is live. TanStack Query asks again after every fetch, so a change of mode takes effect
 * at the next fetch (the stream's provider refetches at once when it is lost).
 */
export function livePoll(ms: number, whenLive = SAFETY_NET_MS): () => number {
  return () => (live ? Math.max(ms, whenLive) : ms);
}

/** The first element of the query keys each topic's changes make stale. */
export const TOPIC_QUERY_KEYS: Record<ChangeTopic, readonly string[]> = {
  // A run or a schedule: everything that shows runs or schedules (the schedules list shows each one's last run).
  // Not the maintenance banner: a run never changes it (it follows `schedules` alone).
  runs: ["overview", "schedules", "timeline", "runs", "schedule-lateness", "queue-summary"],
  // A schedule's definition or pause, or a maintenance window: what shows schedules (and their pauses).
  schedules: ["schedules", "timeline", "maintenance", "queue-summary"],
  // The header's last-hour counts, when only the clock moved them (a run slid out of the window).
  attention: ["overview"],
  alerts: ["alerts"],
  // The console evaluates "no live worker" itself when it answers the alert summary, so alerts follow workers too.
  workers: ["workers", "handlers", "health", "alerts", "queue-summary"],
  health: ["health"],
};
