// Changing a team's worker pool moves the team's queued jobs with it. A run's job goes to its team's pool's queue when
// it is sent (worker-pool.ts); without this, the jobs already queued when the pool changes would stay in the old
// pool's queues: run by a worker of the old pool, or waiting forever if that pool has no worker any more.
//
// pg-boss has no call that moves a job to another queue, so this is a documented SQL move on the caller's transaction
// (the one that changes teams.worker_pool): it renames the job (pgboss.job's `name`, its queue) and keeps every other
// pg-boss column (id, data, priority, start_after, expiry, retry count…), as the take-by-key (worker/claim-notified-job.ts)
// keeps pg-boss's fetch. Only jobs not yet taken move (state 'created' or 'retry'); a job a dispatcher holds (its fetch
// locks the row) is waited for and then left alone, its run already starting on the old pool's worker. The target
// queues are created first (pg-boss's createQueue: the job's queue is a foreign key), and a NOTIFY 'vigil_due' per
// moved due time wakes the new pool's dispatchers at commit.
import type { PgBoss } from "pg-boss";
import type { Queryable } from "../db/pool";
import { ensureRunQueues, RUN_QUEUE_PREFIX } from "./boss";
import { runQueueKey } from "./worker-pool";
import { DUE_CHANNEL, dueNotice } from "./send-run-job";

/** pg-boss's schema (core/queue/boss.ts starts it with the default). */
const BOSS_SCHEMA = "pgboss";

export interface MovedJobs {
  /** Jobs moved from the old pool's queues to the new pool's. */
  moved: number;
}

/**
 * Moves the queued (not yet taken) jobs of team `teamId`'s unfinished runs from pool `from`'s queues to pool `to`'s
 * (null: the queues without a pool), on `tx`. Call it in the transaction that changes teams.worker_pool, after the
 * change (the team row is locked by then, so no send of the team reads the old pool after this reads the runs).
 */
export async function moveTeamQueuedJobs(
  tx: Queryable,
  boss: PgBoss,
  move: { teamId: string; from: string | null; to: string | null },
): Promise<MovedJobs> {
  if ((move.from ?? null) === (move.to ?? null)) return { moved: 0 };
  const { rows: handlers } = await tx.query<{ handler: string }>(
    `SELECT DISTINCT r.handler FROM runs r JOIN schedules s ON s.id = r.schedule_id WHERE s.team_id = $1 AND r.finished_at IS NULL`,
    [move.teamId],
  );
  if (handlers.length === 0) return { moved: 0 };
  await ensureRunQueues(
    boss,
    handlers.map((h) => runQueueKey(h.handler, move.to)),
  );
  const { rows } = await tx.query<{ handler: string; start_after: Date; n: number }>(
    `WITH moved AS (
       UPDATE ${BOSS_SCHEMA}.job j SET name = $4 || r.handler || coalesce('/' || $3::text, '')
         FROM runs r JOIN schedules s ON s.id = r.schedule_id
        WHERE s.team_id = $1 AND r.finished_at IS NULL
          AND j.name = $4 || r.handler || coalesce('/' || $2::text, '')
          AND j.data->>'runId' = r.id::text
          AND j.state < 'active'
       RETURNING r.handler, j.start_after)
     SELECT handler, start_after, count(*)::int AS n FROM moved GROUP BY handler, start_after`,
    [move.teamId, move.from, move.to, RUN_QUEUE_PREFIX],
  );
  if (rows.length > 0) {
    const notices = [...new Set(rows.map((r) => dueNotice(r.start_after, runQueueKey(r.handler, move.to))))];
    await tx.query(`SELECT pg_notify($1, t) FROM unnest($2::text[]) AS t`, [DUE_CHANNEL, notices]);
  }
  return { moved: rows.reduce((n, r) => n + r.n, 0) };
}
