// Planner lag, for the worker heartbeat and alerts: how far the planners are behind, on the database clock.
// The larger of (a) how far the least advanced live schedule's planning cursor is behind now, and (b) how
// long the oldest run that should already have its job (due, not paused, not waiting its catch-up turn) has
// been waiting for it. Zero when planning is ahead and everything due is enqueued.
import type { Queryable } from "../../db/pool";
import { pausedSql } from "../paused";

export async function measurePlannerLag(db: Queryable): Promise<number> {
  const { rows } = await db.query<{ lag_ms: number }>(
    `SELECT greatest(
              0,
              (SELECT extract(epoch FROM clock_timestamp() - min(s.planned_through)) * 1000
                 FROM schedules s WHERE s.deleted_at IS NULL),
              (SELECT extract(epoch FROM clock_timestamp() - min(r.due_at)) * 1000
                 FROM runs r JOIN schedules s ON s.id = r.schedule_id
                WHERE r.state = 'planned' AND r.wait_reason IS NULL AND r.due_at <= clock_timestamp()
                  AND s.deleted_at IS NULL AND (NOT ${pausedSql("s")} OR r.kind = 'manual'))
            )::float8 AS lag_ms`,
  );
  return Math.round(rows[0]?.lag_ms ?? 0);
}
