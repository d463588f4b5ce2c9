// Running attempts prove they are alive on the database clock. One statement per worker per
// interval covers all its runs; its answer also tells the worker which runs it no longer owns
// (reaped or cancelled directly: stop them now) and which have a cancel request (a missed NOTIFY).
import type { Queryable } from "../../db/pool";

export interface HeartbeatAnswer {
  /** Still ours and running: heartbeat_at is now clock_timestamp(). */
  alive: string[];
  /** Still ours, with cancel_requested_at set. */
  cancelRequested: string[];
  /** Asked about but no longer ours (another state, attempt or worker). Runs in neither list were busy: ask again. */
  lost: string[];
}

export async function heartbeatRuns(db: Queryable, workerId: string, runs: { runId: string; attempt: number }[]): Promise<HeartbeatAnswer> {
  if (runs.length === 0) return { alive: [], cancelRequested: [], lost: [] };
  // A run another transaction holds (its claim or outcome being written right now) is skipped, not
  // waited for: waiting would queue this worker's other heartbeats behind it and, holding the rows
  // already updated, stall the claims and outcomes that need them. A skipped run is neither alive nor
  // lost this time; whether it is still ours is read from the last committed row.
  const { rows } = await db.query<{ id: string; alive: boolean; cancel_requested: boolean }>(
    `WITH mine AS (
       SELECT * FROM unnest($2::uuid[], $3::int[]) AS m(id, attempt)
     ), ours AS (
       SELECT r.id, r.attempt FROM runs r JOIN mine ON mine.id = r.id
        WHERE r.attempt = mine.attempt AND r.worker_id = $1 AND r.state = 'running'
        ORDER BY r.id
          FOR NO KEY UPDATE OF r SKIP LOCKED
     ), hb AS (
       UPDATE runs r SET heartbeat_at = clock_timestamp()
         FROM ours
        WHERE r.id = ours.id
        RETURNING r.id, r.attempt, r.cancel_requested_at IS NOT NULL AS cancel_requested
     ), ha AS (
       UPDATE attempts a SET heartbeat_at = clock_timestamp()
         FROM hb
        WHERE a.run_id = hb.id AND a.number = hb.attempt
     )
     SELECT id, true AS alive, cancel_requested FROM hb
     UNION ALL
     SELECT mine.id, false, false FROM mine
      WHERE NOT EXISTS (SELECT 1 FROM runs r WHERE r.id = mine.id AND r.attempt = mine.attempt AND r.worker_id = $1 AND r.state = 'running')`,
    [workerId, runs.map((r) => r.runId), runs.map((r) => r.attempt)],
  );
  const alive = rows.filter((r) => r.alive);
  return {
    alive: alive.map((r) => r.id),
    cancelRequested: alive.filter((r) => r.cancel_requested).map((r) => r.id),
    lost: rows.filter((r) => !r.alive).map((r) => r.id),
  };
}
