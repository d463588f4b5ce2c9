// Schedules the next attempt of a run whose attempt ended without success (failed, timed out,
// zombie, interrupted): state 'retrying', next_attempt_at on the database clock after a full-jitter
// backoff, and the next attempt's job, all in the caller's transaction. Only call it once the
// previous attempt is certainly dead (thread terminated, sessions terminated, or fenced).
import type { PgBoss } from "pg-boss";
import type { Queryable } from "../../db/pool";
import { sendRunJob } from "../../queue/send-run-job";
import { recordRunEvent } from "../record-run-event";
import { retryDelayMs, type RetryPolicy } from "./retry-backoff";

export function hasAttemptsLeft(run: { attempt: number; maxAttempts: number }): boolean {
  return run.attempt < run.maxAttempts;
}

export async function scheduleRetry(
  tx: Queryable,
  boss: PgBoss,
  run: { id: string; handler: string; attempt: number; maxAttempts: number; timeoutSeconds: number; graceSeconds: number },
  policy: RetryPolicy,
  opts: { workerId?: string | null; reason: string; random?: () => number },
): Promise<{ nextAttemptAt: Date; delayMs: number }> {
  const delayMs = retryDelayMs(run.attempt, policy, opts.random);
  const { rows } = await tx.query<{ next_attempt_at: Date }>(
    `UPDATE runs SET state = 'retrying', wait_reason = NULL, wakes = 0,
            next_attempt_at = clock_timestamp() + make_interval(secs => $2::float8 / 1000.0),
            updated_at = clock_timestamp()
      WHERE id = $1
      RETURNING next_attempt_at`,
    [run.id, delayMs],
  );
  const nextAttemptAt = rows[0]!.next_attempt_at;
  await sendRunJob(tx, boss, {
    runId: run.id,
    handler: run.handler,
    attempt: run.attempt + 1,
    dueAt: nextAttemptAt,
    timeoutSeconds: run.timeoutSeconds,
    graceSeconds: run.graceSeconds,
  });
  await recordRunEvent(tx, {
    runId: run.id,
    type: "retry_scheduled",
    attempt: run.attempt,
    workerId: opts.workerId ?? null,
    message: `attempt ${run.attempt + 1} of ${run.maxAttempts} in ${(delayMs / 1000).toFixed(1)} s (${opts.reason})`,
    data: { delayMs, nextAttempt: run.attempt + 1, nextAttemptAt: nextAttemptAt.toISOString() },
  });
  return { nextAttemptAt, delayMs };
}
