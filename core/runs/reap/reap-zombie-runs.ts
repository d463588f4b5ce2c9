// Zombies are found and put down. A running run whose heartbeat is older than the threshold (its
// worker died, froze or lost the database) is marked zombie with the reason, its database sessions
// are terminated, its slot freed, and it is retried (attempts left) or ends 'zombie'. Safe in every
// worker at once: each run is taken FOR UPDATE SKIP LOCKED and re-checked under the lock. A retry
// here cannot overlap the old attempt: a worker that cannot heartbeat kills its own handlers after
// half the threshold (worker/executor/run-heartbeat.ts).
import type pg from "pg";
import type { PgBoss } from "pg-boss";
import { withTransaction, type Queryable } from "../../db/pool";
import { runQueueFor } from "../../queue/boss";
import { findRunPools, runQueueKey } from "../../queue/worker-pool";
import { jobIdFor } from "../../queue/job-id";
import { recordAudit } from "../../audit/record-audit";
import { systemActor } from "../../auth/roles";
import { recordRunEvent } from "../record-run-event";
import { lockRunScope } from "../locks/lock-run-scope";
import { terminateRunSessions } from "./terminate-run-sessions";
import { hasAttemptsLeft, scheduleRetry } from "../finish/retry-run";
import { wakeWaitingRuns } from "../locks/wake-waiting-runs";

export interface ReapedRun {
  runId: string;
  scheduleId: string;
  attempt: number;
  /** The worker the attempt was running on (the one that went silent). */
  ownerWorkerId: string | null;
  state: string;
  why: string;
}

export async function reapZombieRuns(
  pool: pg.Pool,
  boss: PgBoss,
  opts: { zombieAfterMs: number; reaperWorkerId: string; limit?: number },
): Promise<ReapedRun[]> {
  const { rows } = await pool.query<{ id: string }>(
    `SELECT id FROM runs
      WHERE state = 'running' AND heartbeat_at < clock_timestamp() - make_interval(secs => $1::float8 / 1000.0)
      ORDER BY heartbeat_at LIMIT $2`,
    [opts.zombieAfterMs, opts.limit ?? 50],
  );
  const reaped: ReapedRun[] = [];
  for (const { id } of rows) {
    const r = await withTransaction((tx) => reapOne(tx, boss, id, opts), pool);
    if (r) reaped.push(r);
  }
  return reaped;
}

async function reapOne(
  tx: Queryable,
  boss: PgBoss,
  runId: string,
  opts: { zombieAfterMs: number; reaperWorkerId: string },
): Promise<ReapedRun | null> {
  const scope = await lockRunScope(tx, runId, { skipLocked: true });
  if (!scope) return null;
  const { run, schedule } = scope;
  if (run.state !== "running" || run.heartbeatAgeMs === null || run.heartbeatAgeMs <= opts.zombieAfterMs) return null;

  const why = await describeWhy(tx, run.workerId, run.heartbeatAgeMs, opts.zombieAfterMs);
  await recordRunEvent(tx, {
    runId,
    type: "zombie_detected",
    attempt: run.attempt,
    workerId: run.workerId,
    message: why,
    data: {
      why,
      heartbeatAgeMs: Math.round(run.heartbeatAgeMs),
      zombieAfterMs: opts.zombieAfterMs,
      ownerWorkerId: run.workerId,
      reapedBy: opts.reaperWorkerId,
    },
  });
  const sessions = await terminateRunSessions(tx, runId);
  await recordRunEvent(tx, {
    runId,
    type: "sessions_terminated",
    attempt: run.attempt,
    workerId: opts.reaperWorkerId,
    message: `${sessions} database session(s) of the zombie attempt terminated`,
    data: { count: sessions },
  });
  await tx.query(
    `UPDATE attempts SET state = 'zombie', finished_at = clock_timestamp(), error = $3
      WHERE run_id = $1 AND number = $2 AND state = 'running'`,
    [runId, run.attempt, why],
  );
  await boss.fail(
    runQueueFor(runQueueKey(run.handler, (await findRunPools(tx, [runId])).get(runId))),
    jobIdFor(runId, run.attempt, run.wakes),
    { error: why },
    {
      db: { executeSql: (text: string, values?: unknown[]) => tx.query(text, values as unknown[]) },
    },
  );

  let state: string;
  if (hasAttemptsLeft(run)) {
    await tx.query(`UPDATE runs SET error = $2, updated_at = clock_timestamp() WHERE id = $1`, [runId, why]);
    await scheduleRetry(
      tx,
      boss,
      run,
      { baseSeconds: schedule.retryBaseSeconds, maxSeconds: schedule.retryMaxSeconds },
      {
        workerId: opts.reaperWorkerId,
        reason: "attempt became a zombie",
      },
    );
    state = "retrying";
  } else {
    await tx.query(
      `UPDATE runs SET state = 'zombie', error = $2, finished_at = clock_timestamp(), updated_at = clock_timestamp() WHERE id = $1`,
      [runId, why],
    );
    state = "zombie";
  }
  await recordAudit(tx, {
    actor: systemActor("reaper"),
    action: "run.zombie_reaped",
    targetType: "run",
    targetId: runId,
    before: { state: "running", attempt: run.attempt, workerId: run.workerId },
    after: { state },
    reason: why,
  });
  await wakeWaitingRuns(tx, boss, { scheduleId: schedule.id, group: scope.group });
  return { runId, scheduleId: schedule.id, attempt: run.attempt, ownerWorkerId: run.workerId, state, why };
}

async function describeWhy(tx: Queryable, workerId: string | null, heartbeatAgeMs: number, zombieAfterMs: number): Promise<string> {
  const base = `no heartbeat for ${(heartbeatAgeMs / 1000).toFixed(1)} s`;
  if (!workerId) return `${base}; no owning worker recorded`;
  const { rows } = await tx.query<{ state: string; stopped: boolean; age_ms: number }>(
    `SELECT state, stopped_at IS NOT NULL AS stopped, (extract(epoch FROM clock_timestamp() - heartbeat_at) * 1000)::float8 AS age_ms
       FROM workers WHERE id = $1`,
    [workerId],
  );
  const w = rows[0];
  if (!w) return `${base}; worker ${workerId} is not registered`;
  if (w.stopped) return `${base}; worker ${workerId} has stopped`;
  const wAge = (w.age_ms / 1000).toFixed(1);
  // A worker silent for half the threshold has self-fenced (or died); the two heartbeats run on their own timers.
  return w.age_ms > zombieAfterMs / 2
    ? `${base}; worker ${workerId} is silent too (last heartbeat ${wAge} s ago): it died or lost the database`
    : `${base}; worker ${workerId} is alive (heartbeat ${wAge} s ago) but stopped heartbeating this run`;
}
