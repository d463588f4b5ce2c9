// Cancel means stop. The request is recorded (run event + audit, one transaction); a run that has
// not started, or waits for a retry, ends cancelled at once; a running attempt whose worker is alive
// is told over NOTIFY 'vigil_cancel' and its worker aborts, terminates and records each stage; a run
// whose worker is gone (or a zombie) is cancelled directly and its database sessions terminated.
import type pg from "pg";
import type { PgBoss } from "pg-boss";
import { getEnv } from "../../env";
import { getPool, withTransaction, type Queryable } from "../../db/pool";
import { ConflictError, NotFoundError } from "../../errors";
import { recordAudit } from "../../audit/record-audit";
import type { Actor } from "../../auth/roles";
import { recordRunEvent } from "../record-run-event";
import { isTerminal } from "../run-states";
import { lockRunScope } from "../locks/lock-run-scope";
import { terminateRunSessions } from "../reap/terminate-run-sessions";
import { wakeWaitingRuns } from "../locks/wake-waiting-runs";

export const CANCEL_CHANNEL = "vigil_cancel";

export interface CancelRunResult {
  runId: string;
  /** cancelled: ended now; cancel_requested: its live worker was told and will end it. */
  outcome: "cancelled" | "cancel_requested";
  state: string;
}

export interface CancelRunOptions {
  /** Sends wake-up jobs to runs waiting for the freed slot; without it the reaper wakes them shortly. */
  boss?: PgBoss | null;
  zombieAfterMs?: number;
  workerDeadAfterMs?: number;
}

export async function cancelRun(
  runId: string,
  actor: Actor,
  reason: string,
  opts: CancelRunOptions & { db?: pg.Pool } = {},
): Promise<CancelRunResult> {
  return withTransaction((tx) => cancelRunInTransaction(tx, runId, actor, reason, opts), opts.db ?? getPool());
}

/** The same, on the caller's transaction (the claim uses it for the cancel_running overlap policy). */
export async function cancelRunInTransaction(
  tx: Queryable,
  runId: string,
  actor: Actor,
  reason: string,
  opts: CancelRunOptions = {},
): Promise<CancelRunResult> {
  const env = getEnv();
  const zombieAfterMs = opts.zombieAfterMs ?? env.VIGIL_ZOMBIE_AFTER_MS;
  const deadAfterMs = opts.workerDeadAfterMs ?? env.VIGIL_WORKER_DEAD_AFTER_MS;
  const scope = await lockRunScope(tx, runId);
  if (!scope) throw new NotFoundError("Run", runId);
  const { run } = scope;
  if (isTerminal(run.state) && run.state !== "zombie") {
    throw new ConflictError(`Run ${runId} already ended as ${run.state}; there is nothing to cancel.`, "run_finished");
  }

  await tx.query(
    `UPDATE runs SET cancel_requested_at = clock_timestamp(), cancel_requested_by = $2, cancel_reason = $3, updated_at = clock_timestamp()
      WHERE id = $1`,
    [runId, actor.label, reason],
  );
  await recordRunEvent(tx, {
    runId,
    type: "cancel_requested",
    attempt: run.attempt || null,
    message: reason ? `by ${actor.label}: ${reason}` : `by ${actor.label}`,
    data: { actor: actor.label, actorType: actor.type, reason, stateAtRequest: run.state },
  });

  let outcome: CancelRunResult["outcome"] = "cancelled";
  if (run.state === "running" && (await ownerIsAlive(tx, runId, zombieAfterMs, deadAfterMs))) {
    await tx.query("SELECT pg_notify($1, $2)", [CANCEL_CHANNEL, runId]);
    outcome = "cancel_requested";
  } else if (run.state === "running" || run.state === "zombie") {
    const n = await terminateRunSessions(tx, runId);
    await recordRunEvent(tx, {
      runId,
      type: "sessions_terminated",
      attempt: run.attempt,
      message: `${n} database session(s) terminated`,
      data: { count: n },
    });
    await tx.query(
      `UPDATE attempts SET state = 'cancelled', finished_at = coalesce(finished_at, clock_timestamp()),
              error = coalesce(error, 'cancelled; its worker was gone')
        WHERE run_id = $1 AND number = $2 AND state IN ('running', 'zombie')`,
      [runId, run.attempt],
    );
    await endCancelled(tx, runId, run.attempt, run.state === "zombie" ? "zombie run cancelled" : "cancelled directly: its worker is gone");
  } else {
    await endCancelled(tx, runId, run.attempt, `cancelled while ${run.state}`);
  }

  await recordAudit(tx, {
    actor,
    action: "run.cancel",
    targetType: "run",
    targetId: runId,
    before: { state: run.state, attempt: run.attempt, workerId: run.workerId },
    after: { outcome },
    reason,
  });
  if (outcome === "cancelled" && opts.boss) await wakeWaitingRuns(tx, opts.boss, { scheduleId: scope.schedule.id, group: scope.group });
  return { runId, outcome, state: outcome === "cancelled" ? "cancelled" : run.state };
}

async function endCancelled(tx: Queryable, runId: string, attempt: number, message: string): Promise<void> {
  await tx.query(
    `UPDATE runs SET state = 'cancelled', wait_reason = NULL, next_attempt_at = NULL,
            finished_at = coalesce(finished_at, clock_timestamp()), updated_at = clock_timestamp()
      WHERE id = $1`,
    [runId],
  );
  await recordRunEvent(tx, { runId, type: "cancelled", attempt: attempt || null, message });
}

/** The run's worker heartbeats (worker row) and the run itself heartbeats: someone will act on a NOTIFY. */
async function ownerIsAlive(tx: Queryable, runId: string, zombieAfterMs: number, deadAfterMs: number): Promise<boolean> {
  const { rows } = await tx.query<{ alive: boolean }>(
    `SELECT (w.id IS NOT NULL AND w.state <> 'stopped' AND w.stopped_at IS NULL
             AND w.heartbeat_at > clock_timestamp() - make_interval(secs => $3::float8 / 1000.0)
             AND r.heartbeat_at > clock_timestamp() - make_interval(secs => $2::float8 / 1000.0)) AS alive
       FROM runs r LEFT JOIN workers w ON w.id = r.worker_id
      WHERE r.id = $1`,
    [runId, zombieAfterMs, deadAfterMs],
  );
  return rows[0]?.alive === true;
}
