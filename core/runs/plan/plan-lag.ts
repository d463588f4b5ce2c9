// Planner lag, for the worker heartbeat and alerts: how far the planners are behind, on the database clock.
// The larger of (a) how far the least advanced live schedule's planning cursor is behind now, and (b) how
// long the oldest run that should already have its job (due, not paused, not waiting its catch-up turn) has
// been waiting for it. Zero when planning is ahead and everything due is enqueued.
//
// A schedule never planned yet (planned_through NULL: inserted behind the API's back, by seeding or as code)
// counts from its creation instant, which is where its cursor starts: 95,000 schedules waiting for their
// first plan are lag, not nothing (a NULL cursor used to fall out of min() and read as 0).
import type { Queryable } from "../../db/pool";
import { pausedSql } from "../paused";

/** The cursor a schedule's planning resumes from; NULL planned_through means it starts at creation. */
export const planCursorSql = (s: string) => `coalesce(${s}.planned_through, ${s}.created_at)`;

const lagSql = `greatest(
    0,
    (SELECT extract(epoch FROM clock_timestamp() - min(${planCursorSql("s")})) * 1000
       FROM schedules s WHERE s.deleted_at IS NULL),
    (SELECT extract(epoch FROM clock_timestamp() - min(r.due_at)) * 1000
       FROM runs r JOIN schedules s ON s.id = r.schedule_id
      WHERE r.state = 'planned' AND r.wait_reason IS NULL AND r.due_at <= clock_timestamp()
        AND s.deleted_at IS NULL AND (NOT ${pausedSql("s")} OR r.kind = 'manual'))
  )::float8`;

export async function measurePlannerLag(db: Queryable): Promise<number> {
  const { rows } = await db.query<{ lag_ms: number }>(`SELECT ${lagSql} AS lag_ms`);
  return Math.round(rows[0]?.lag_ms ?? 0);
}

export interface PlanAhead {
  /** See the top of this file. */
  lagMs: number;
  /** Live schedules whose cursor is behind now: fires already due may have no row yet (never-planned ones included). */
  behind: number;
  /** Live schedules due for (re)planning: cursor less than half a horizon ahead. Only with `horizonSeconds`. */
  backlog?: number;
}

export async function measurePlanAhead(db: Queryable, horizonSeconds?: number): Promise<PlanAhead> {
  const { rows } = await db.query<{ lag_ms: number; behind: number; backlog: number | null }>(
    // now() rather than clock_timestamp() in the counts: an index range (schedules_plan_cursor_idx), not a scan.
    `SELECT ${lagSql} AS lag_ms,
            (SELECT count(*)::int FROM schedules s
              WHERE s.deleted_at IS NULL AND ${planCursorSql("s")} < now()) AS behind,
            CASE WHEN $1::float8 IS NULL THEN NULL ELSE
              (SELECT count(*)::int FROM schedules s
                WHERE s.deleted_at IS NULL AND ${planCursorSql("s")} < now() + make_interval(secs => $1::float8 / 2))
            END AS backlog`,
    [horizonSeconds ?? null],
  );
  const r = rows[0]!;
  return { lagMs: Math.round(r.lag_ms ?? 0), behind: r.behind, ...(r.backlog === null ? {} : { backlog: r.backlog }) };
}
