// Running attempts prove they are alive on the database clock. One statement per worker per
// interval covers all its runs; its answer also tells the worker which runs it no longer owns
// (reaped or cancelled directly: stop them now) and which have a cancel request (a missed NOTIFY).
import type { Queryable } from "../db/pool";

export interface HeartbeatAnswer {
  /** Still ours and running: heartbeat_at is now clock_timestamp(). */
  alive: string[];
  /** Still ours, with cancel_requested_at set. */
  cancelRequested: string[];
  /** Asked about but no longer ours (another state, attempt or worker). */
  lost: string[];
}

export async function heartbeatRuns(db: Queryable, workerId: string, runs: { runId: string; attempt: number }[]): Promise<HeartbeatAnswer> {
  if (runs.length === 0) return { alive: [], cancelRequested: [], lost: [] };
  const { rows } = await db.query<{ id: string; attempt: number; cancel_requested: boolean }>(
    `WITH mine AS (
       SELECT * FROM unnest($2::uuid[], $3::int[]) AS m(id, attempt)
     ), hb AS (
       UPDATE runs r SET heartbeat_at = clock_timestamp()
         FROM mine
        WHERE r.id = mine.id AND r.attempt = mine.attempt AND r.worker_id = $1 AND r.state = 'running'
        RETURNING r.id, r.attempt, r.cancel_requested_at IS NOT NULL AS cancel_requested
     ), ha AS (
       UPDATE attempts a SET heartbeat_at = clock_timestamp()
         FROM hb
        WHERE a.run_id = hb.id AND a.number = hb.attempt
     )
     SELECT id, attempt, cancel_requested FROM hb`,
    [workerId, runs.map((r) => r.runId), runs.map((r) => r.attempt)],
  );
  const alive = new Set(rows.map((r) => r.id));
  return {
    alive: [...alive],
    cancelRequested: rows.filter((r) => r.cancel_requested).map((r) => r.id),
    lost: runs.map((r) => r.runId).filter((id) => !alive.has(id)),
  };
}
