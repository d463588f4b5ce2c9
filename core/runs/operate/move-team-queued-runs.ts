// Changing a team's worker pool moves the team's queued runs with it. A run's job goes to its team's pool's queue when
// it is sent (core/queue/worker-pool.ts); without this, the jobs already queued when the pool changes would stay in the
// old pool's queues: run by a worker of the old pool, or waiting forever if that pool has no worker any more.
//
// pg-boss stays the executor of record and the one writer of its jobs: a run's waiting job is cancelled through
// pg-boss (core/queue/cancel-queued-run-jobs.ts) and the run is sent a fresh job to the new pool's queue through the
// one sender (sendRunJobs), as the next wake of the same attempt (runs.wakes + 1, so a new job id, jobIdFor), as a
// slot release wakes a waiting run (locks/wake-waiting-runs.ts). The new job keeps the old one's due time and
// priority (a retry keeps its jittered instant, a manual trigger its place ahead of the backlog); its expiry follows
// from the run's timeout and grace (runJobOptions).
//
// Races: only a run's current job (jobIdFor(run, attempt + 1, wakes)) that is still waiting moves. One a dispatcher
// is fetching or has taken is left alone and its run starts on the old pool. The claim does not compare wakes (it
// suppresses a delivery by the run's state and attempt: whichever job comes first starts the attempt), so the old job
// must never be delivered: it is cancelled under its row lock in the transaction that sends the new one, and no fetch,
// pg-boss's or the take-by-key, takes a job past 'created'/'retry'. Lock order (locks/lock-run-scope.ts, audit/record-audit.ts): the caller holds the team row; then the
// runs' rows in id order (waited for: a claim, finish or wake in flight commits first, and its job is then seen);
// then their jobs' rows, never waited for; the caller writes its audit row last.
import type { PgBoss } from "pg-boss";
import type { Queryable } from "../../db/pool";
import { cancelQueuedRunJobs } from "../../queue/cancel-queued-run-jobs";
import { jobIdFor } from "../../queue/job-id";
import { runQueueFor } from "../../queue/boss";
import { sendRunJobs } from "../../queue/send-run-job";
import { runQueueKey } from "../../queue/worker-pool";
import { recordRunEvents } from "../record-run-event";
import { wakeJob, wokenRunColumns, type WokenRun } from "../locks/wake-job";

export interface MovedRuns {
  /** Runs whose queued job moved from the old pool's queues to the new pool's. */
  moved: number;
}

/**
 * Moves the queued (not yet taken) jobs of team `teamId`'s unfinished runs from pool `from`'s queues to pool `to`'s
 * (null: the queues without a pool), on `tx`. Call it in the transaction that changes teams.worker_pool, after the
 * change and before the audit row: the team row is locked by then, and the new jobs go to the team's new pool.
 */
export async function moveTeamQueuedRuns(
  tx: Queryable,
  boss: PgBoss,
  move: { teamId: string; from: string | null; to: string | null },
): Promise<MovedRuns> {
  if ((move.from ?? null) === (move.to ?? null)) return { moved: 0 };
  const { rows: runs } = await tx.query<{ id: string; handler: string; attempt: number; wakes: number }>(
    `SELECT r.id, r.handler, r.attempt, r.wakes FROM runs r JOIN schedules s ON s.id = r.schedule_id
      WHERE s.team_id = $1 AND r.state IN ('queued', 'retrying')
      ORDER BY r.id
        FOR NO KEY UPDATE OF r`,
    [move.teamId],
  );
  const cancelled = await cancelQueuedRunJobs(
    tx,
    boss,
    runs.map((r) => ({ queue: runQueueFor(runQueueKey(r.handler, move.from)), id: jobIdFor(r.id, r.attempt + 1, r.wakes) })),
  );
  if (cancelled.length === 0) return { moved: 0 };
  const jobs = new Map(cancelled.map((j) => [j.id, j]));
  const movedRunIds = runs.filter((r) => jobs.has(jobIdFor(r.id, r.attempt + 1, r.wakes))).map((r) => r.id);
  const { rows } = await tx.query<WokenRun>(
    `UPDATE runs SET wakes = wakes + 1, updated_at = clock_timestamp() WHERE id = ANY($1::uuid[])
      RETURNING ${wokenRunColumns()}`,
    [movedRunIds],
  );
  const sends = rows.map((r) => {
    const old = jobs.get(jobIdFor(r.id, r.attempt + 1, r.wakes - 1))!;
    return wakeJob(r, old.startAfter, { priority: old.priority, pool: move.to });
  });
  await sendRunJobs(tx, boss, sends);
  await recordRunEvents(
    tx,
    sends.map((s) => ({
      runId: s.runId,
      type: "woken" as const,
      attempt: s.attempt,
      message: `its team's worker pool changed: the job moved from ${move.from ? `pool ${move.from}` : "the workers without a pool"} to ${move.to ? `pool ${move.to}` : "the workers without a pool"}`,
      data: { wake: s.wake, fromPool: move.from, toPool: move.to, dueAt: s.dueAt.toISOString() },
    })),
  );
  return { moved: rows.length };
}
