// Worker pools: a team may be assigned a pool (teams.worker_pool); its runs are then executed only by workers started
// with that pool (--pool / VIGIL_WORKER_POOL), and a worker without a pool serves only the teams without one. The pool
// travels in the pg-boss queue name (runQueueFor in boss.ts): "vigil-run.<handler>/<pool>" beside the plain
// "vigil-run.<handler>", so a worker fetches only its pool's queues and a run of a pool no live worker serves waits in
// its queue. A run's pool is its team's when its job is sent (sendRunJob / sendRunJobs / the one-statement trigger):
// changing a team's pool moves the team's queued runs to the new pool's queues in the change's transaction: each
// waiting job is cancelled through pg-boss and its run sent a fresh job (core/runs/operate/move-team-queued-runs.ts).
//
// Availability is per pool: "a live worker serves handler H" always means "a live worker of the run's pool serves H"
// (liveWorkerServesSql in core/handlers/handler-registry.ts, with teamPoolSql / workerPoolSql below); the alert, the
// handler badge, the forecast and the run page all say it in noLiveWorkerText's words.
import { z } from "zod";
import type { Queryable } from "../db/pool";

export const WORKER_POOL_PATTERN = /^[a-z][a-z0-9_-]{0,62}$/;
export const WORKER_POOL_RULE = "lower-case letters, digits, _ and -, starting with a letter (at most 63)";

export const workerPoolSchema = z.string().regex(WORKER_POOL_PATTERN, { error: `A worker pool's name uses ${WORKER_POOL_RULE}` });

/** The part of a run queue's name after the prefix: the handler, and "/<pool>" for a pool's queue. */
export function runQueueKey(handler: string, pool: string | null | undefined): string {
  return pool ? `${handler}/${pool}` : handler;
}

/** SQL: the queue key of a run of `handler` in the team `teamId` (both SQL expressions), as runQueueKey writes it. */
export function runQueueKeySql(handler: string, teamId: string): string {
  return `${handler} || coalesce('/' || ${teamPoolSql(teamId)}, '')`;
}

/** SQL: the pool of the team `teamId` (an SQL expression); NULL for a team without one. */
export function teamPoolSql(teamId: string): string {
  return `(SELECT tp.worker_pool FROM teams tp WHERE tp.id = ${teamId})`;
}

/**
 * SQL: the pool of the run whose schedule is `scheduleId` (an SQL expression): its schedule's team's; NULL for none.
 * A caller whose statement already reads or updates the run returns it with the run (RETURNING …) and passes it to
 * sendRunJob as `pool`, which then skips its own lookup (one statement less per send).
 */
export function runPoolSql(scheduleId: string): string {
  return `(SELECT tp.worker_pool FROM schedules sp JOIN teams tp ON tp.id = sp.team_id WHERE sp.id = ${scheduleId})`;
}

/** SQL: the pool the worker row `w` serves (it records it in workers.info when it registers); NULL: none. */
export function workerPoolSql(w: string): string {
  return `(${w}.info->>'pool')`;
}

/** What an operator reads when no live worker (of the pool, if any) serves a handler. */
export function noLiveWorkerText(handler: string, pool: string | null | undefined): string {
  return pool ? `no live worker of pool ${pool} serves handler ${handler}` : `no live worker serves handler ${handler}`;
}

/** Each run's pool (its schedule's team's), by run id; a run of a team without a pool maps to null. */
export async function findRunPools(db: Queryable, runIds: readonly string[]): Promise<Map<string, string | null>> {
  if (runIds.length === 0) return new Map();
  const { rows } = await db.query<{ id: string; pool: string | null }>(
    `SELECT r.id, t.worker_pool AS pool FROM runs r JOIN schedules s ON s.id = r.schedule_id JOIN teams t ON t.id = s.team_id
      WHERE r.id = ANY($1::uuid[])`,
    [[...runIds]],
  );
  return new Map(rows.map((r) => [r.id, r.pool]));
}

/** The schedule's team's pool (null: none, or no such schedule). */
export async function findSchedulePool(db: Queryable, scheduleId: string): Promise<string | null> {
  const { rows } = await db.query<{ pool: string | null }>(
    `SELECT t.worker_pool AS pool FROM schedules s JOIN teams t ON t.id = s.team_id WHERE s.id = $1`,
    [scheduleId],
  );
  return rows[0]?.pool ?? null;
}
