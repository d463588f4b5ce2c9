// Worker registry: every worker process has a row with host, pid, version and a heartbeat on the
// database clock. The console lists live and dead ones; the reaper trusts these heartbeats.
import os from "node:os";
import crypto from "node:crypto";
import type { Queryable } from "../db/pool";

export interface WorkerIdentity {
  id: string;
  host: string;
  pid: number;
  version: string;
}

export function newWorkerIdentity(version: string): WorkerIdentity {
  const host = os.hostname();
  return { id: `${host}-${process.pid}-${crypto.randomBytes(3).toString("hex")}`, host, pid: process.pid, version };
}

/** `pool`: the worker pool it serves (core/queue/worker-pool.ts), kept in its info for the Workers page. */
export async function registerWorker(db: Queryable, w: WorkerIdentity, capacity: number, pool: string | null = null): Promise<void> {
  await db.query(
    `INSERT INTO workers (id, host, pid, version, capacity, state, info)
     VALUES ($1, $2, $3, $4, $5, 'running', jsonb_build_object('pool', $6::text))`,
    [w.id, w.host, w.pid, w.version, capacity, pool],
  );
}

export async function heartbeatWorker(db: Queryable, workerId: string, info?: { plannerLagMs?: number; running?: number }): Promise<void> {
  await db.query(
    `UPDATE workers SET heartbeat_at = clock_timestamp(), planner_lag_ms = coalesce($2, planner_lag_ms),
            info = coalesce(info, '{}'::jsonb) || jsonb_build_object('running', $3::int)
      WHERE id = $1`,
    [workerId, info?.plannerLagMs ?? null, info?.running ?? 0],
  );
}

export async function markWorkerState(db: Queryable, workerId: string, state: "draining" | "stopped"): Promise<void> {
  await db.query(
    `UPDATE workers SET state = $2, stopped_at = CASE WHEN $2 = 'stopped' THEN clock_timestamp() ELSE stopped_at END WHERE id = $1`,
    [workerId, state],
  );
}
