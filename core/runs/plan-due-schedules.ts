// The planning step of a planner tick: every live schedule whose cursor (planned_through) is less than half a
// horizon ahead of the database clock gets its fires up to now + horizon written as occurrences. Safe on every
// worker at once: schedules are taken FOR UPDATE SKIP LOCKED in small batches (one transaction each), and the
// inserts are idempotent anyway. A schedule is re-planned about every half horizon, which keeps a tick cheap
// with thousands of schedules.
import type pg from "pg";
import { withTransaction, type Queryable } from "../db/pool";
import { SCHEDULE_COLUMNS, toSchedule, type Schedule } from "../schedules/schedule-record";
import { planOccurrences } from "./plan-occurrences";

export interface PlanStepResult {
  schedules: number;
  inserted: number;
}

export async function planDueSchedules(
  pool: pg.Pool,
  opts: { horizonSeconds: number; batchSize?: number; maxBatches?: number },
): Promise<PlanStepResult> {
  const batchSize = opts.batchSize ?? 100;
  const result: PlanStepResult = { schedules: 0, inserted: 0 };
  for (let i = 0; i < (opts.maxBatches ?? 50); i++) {
    const n = await withTransaction(async (tx) => {
      const { rows } = await tx.query(
        `SELECT ${SCHEDULE_COLUMNS}, clock_timestamp() AS db_now
           FROM schedules s
          WHERE s.deleted_at IS NULL
            AND (s.planned_through IS NULL OR s.planned_through < clock_timestamp() + make_interval(secs => $1::float8 / 2))
          ORDER BY s.planned_through NULLS FIRST, s.id
          LIMIT $2
            FOR UPDATE OF s SKIP LOCKED`,
        [opts.horizonSeconds, batchSize],
      );
      for (const row of rows) {
        const now: Date = row.db_now;
        const until = new Date(now.getTime() + opts.horizonSeconds * 1000);
        result.inserted += await planScheduleThrough(tx, toSchedule(row), until);
      }
      return rows.length;
    }, pool);
    result.schedules += n;
    if (n < batchSize) break;
  }
  return result;
}

/**
 * Writes the schedule's fires from its cursor through `until` (several calls for a long gap, e.g. after
 * downtime) and moves the cursor. The caller holds the schedule's row lock. Returns rows inserted.
 */
export async function planScheduleThrough(tx: Queryable, schedule: Schedule, until: Date, maxCalls = 10): Promise<number> {
  let cursor = schedule.plannedThrough ?? schedule.createdAt;
  let inserted = 0;
  for (let call = 0; call < maxCalls && cursor.getTime() < until.getTime(); call++) {
    const r = await planOccurrences(tx, schedule, { from: cursor, until });
    inserted += r.inserted.length;
    cursor = r.cursor;
  }
  if (schedule.plannedThrough === null || cursor.getTime() !== schedule.plannedThrough.getTime()) {
    await tx.query(`UPDATE schedules SET planned_through = $2 WHERE id = $1`, [schedule.id, cursor.toISOString()]);
  }
  return inserted;
}
