// Live and dead workers as the console and health check see them: "live" means a heartbeat
// within the dead-after window, measured on the database clock.
import type { Queryable } from "../db/pool";

export interface WorkerRow {
  id: string;
  host: string;
  pid: number;
  version: string;
  capacity: number;
  state: string;
  startedAt: Date;
  heartbeatAt: Date;
  stoppedAt: Date | null;
  heartbeatAgeMs: number;
  live: boolean;
  running: number;
  plannerLagMs: number | null;
  /** The handlers it advertised (core/handlers/advertise-handlers.ts), by name. */
  handlers: string[];
  /** The worker pool it serves (core/queue/worker-pool.ts); null: the teams without a pool. */
  pool: string | null;
}

export async function listWorkers(db: Queryable, deadAfterMs: number, opts: { limit?: number } = {}): Promise<WorkerRow[]> {
  const { rows } = await db.query<{
    id: string;
    host: string;
    pid: number;
    version: string;
    capacity: number;
    state: string;
    started_at: Date;
    heartbeat_at: Date;
    stopped_at: Date | null;
    planner_lag_ms: number | null;
    age_ms: number;
    running: number;
    handlers: string[];
    pool: string | null;
  }>(
    `SELECT w.id, w.host, w.pid, w.version, w.capacity, w.state, w.started_at, w.heartbeat_at, w.stopped_at,
            w.planner_lag_ms, w.info->>'pool' AS pool,
            (extract(epoch FROM clock_timestamp() - w.heartbeat_at) * 1000)::int AS age_ms,
            (SELECT count(*) FROM runs r WHERE r.worker_id = w.id AND r.state = 'running')::int AS running,
            coalesce((SELECT array_agg(wh.handler ORDER BY wh.handler) FROM worker_handlers wh WHERE wh.worker_id = w.id), '{}') AS handlers
       FROM workers w
      ORDER BY (w.stopped_at IS NULL AND w.heartbeat_at > clock_timestamp() - make_interval(secs => $1 / 1000.0)) DESC,
               w.heartbeat_at DESC
      LIMIT $2`,
    [deadAfterMs, opts.limit ?? 200],
  );
  return rows.map((r) => ({
    id: r.id,
    host: r.host,
    pid: r.pid,
    version: r.version,
    capacity: r.capacity,
    state: r.state,
    startedAt: r.started_at,
    heartbeatAt: r.heartbeat_at,
    stoppedAt: r.stopped_at,
    pool: r.pool,
    heartbeatAgeMs: r.age_ms,
    live: r.stopped_at === null && r.state !== "stopped" && r.age_ms <= deadAfterMs,
    running: r.running,
    plannerLagMs: r.planner_lag_ms,
    handlers: r.handlers,
  }));
}

export async function countLiveWorkers(db: Queryable, deadAfterMs: number): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM workers
      WHERE stopped_at IS NULL AND state <> 'stopped'
        AND heartbeat_at > clock_timestamp() - make_interval(secs => $1 / 1000.0)`,
    [deadAfterMs],
  );
  return rows[0]!.n;
}
