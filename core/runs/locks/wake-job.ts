// A wake re-sends a run's current attempt as a fresh pg-boss job: the run's `wakes` is bumped in the same statement
// that reads it back, and the new wake number names the new job (jobIdFor). The slot release (wake-waiting-runs.ts),
// the start-rate hold-back (claim/start-rate-limit.ts) and a team's pool change (operate/move-team-queued-runs.ts)
// all read these columns back and build the job the same way.
import type { RunJob } from "../../queue/send-run-job";

/** The columns a wake's UPDATE … RETURNING reads back (with `alias.` before each when the statement joins). */
export function wokenRunColumns(alias?: string): string {
  const p = alias ? `${alias}.` : "";
  return ["id", "handler", "attempt", "wakes", "timeout_seconds", "grace_seconds"].map((c) => p + c).join(", ");
}

export interface WokenRun {
  id: string;
  handler: string;
  attempt: number;
  wakes: number;
  timeout_seconds: number;
  grace_seconds: number;
}

/** The job of a woken run's next wake, due at `dueAt` (pool and priority: the caller's, when it knows them). */
export function wakeJob(r: WokenRun, dueAt: Date, extra: Pick<RunJob, "pool" | "priority"> = {}): RunJob & { wake: number } {
  return {
    runId: r.id,
    handler: r.handler,
    attempt: r.attempt + 1,
    wake: r.wakes,
    dueAt,
    timeoutSeconds: r.timeout_seconds,
    graceSeconds: r.grace_seconds,
    ...extra,
  };
}
