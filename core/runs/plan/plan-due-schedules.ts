// The planning step of a planner tick: every live schedule whose cursor (planned_through) is less than half a
// horizon ahead of the database clock gets its fires up to now + horizon written as occurrences. Safe on every
// worker at once: schedules are taken FOR UPDATE SKIP LOCKED in small batches (one transaction each), and the
// inserts are idempotent anyway. A schedule is re-planned about every half horizon, which keeps a tick cheap
// with thousands of schedules.
import type pg from "pg";
import { withTransaction, type Queryable } from "../../db/pool";
import { getLogger } from "../../log";
import { SCHEDULE_COLUMNS, toSchedule, type Schedule, type ScheduleRow } from "../../schedules/schedule-record";
import { insertOccurrencesOfSchedules, occurrencesBetween, type OccurrenceInput } from "./plan-occurrences";

export interface PlanStepResult {
  schedules: number;
  inserted: number;
}

export async function planDueSchedules(
  pool: pg.Pool,
  opts: { horizonSeconds: number; batchSize?: number; maxBatches?: number },
): Promise<PlanStepResult> {
  const batchSize = opts.batchSize ?? 200;
  const result: PlanStepResult = { schedules: 0, inserted: 0 };
  for (let i = 0; i < (opts.maxBatches ?? 25); i++) {
    const n = await withTransaction(async (tx) => {
      const { rows } = await tx.query<ScheduleRow & { db_now: Date }>(
        `SELECT ${SCHEDULE_COLUMNS}, clock_timestamp() AS db_now
           FROM schedules s
          WHERE s.deleted_at IS NULL
            AND (s.planned_through IS NULL OR s.planned_through < clock_timestamp() + make_interval(secs => $1::float8 / 2))
          ORDER BY s.planned_through NULLS FIRST, s.id
          LIMIT $2
            FOR UPDATE OF s SKIP LOCKED`,
        [opts.horizonSeconds, batchSize],
      );
      if (rows.length === 0) return 0;
      const until = new Date(rows[0]!.db_now.getTime() + opts.horizonSeconds * 1000);
      result.inserted += await planSchedulesThrough(tx, rows.map(toSchedule), until);
      return rows.length;
    }, pool);
    result.schedules += n;
    if (n < batchSize) break;
  }
  return result;
}

/**
 * Writes the schedules' fires from their cursors through `until` (a long gap, e.g. after downtime, over several
 * rounds) and moves their cursors; one INSERT and one UPDATE per round for all of them. The caller holds the
 * schedules' row locks. Returns rows inserted.
 */
export async function planSchedulesThrough(tx: Queryable, schedules: readonly Schedule[], until: Date, maxRounds = 10): Promise<number> {
  const cursors = new Map(schedules.map((s) => [s.id, s.plannedThrough ?? s.createdAt]));
  const broken = new Set<string>();
  let inserted = 0;
  for (let round = 0; round < maxRounds; round++) {
    const items: (OccurrenceInput & { scheduleId: string })[] = [];
    for (const s of schedules) {
      const from = cursors.get(s.id)!;
      if (from.getTime() >= until.getTime() || broken.has(s.id)) continue;
      try {
        const planned = occurrencesBetween(s, { from, until });
        items.push(...planned.items);
        cursors.set(s.id, planned.cursor);
      } catch (err) {
        // One schedule whose fire times cannot be computed must not stop the others from being planned. Its
        // cursor stays put, so it shows as planner lag (and alerts) until it is fixed.
        broken.add(s.id);
        getLogger().error({ err, scheduleId: s.id, trigger: s.trigger }, "cannot compute this schedule's fire times; it is not planned");
      }
    }
    if (items.length === 0) break;
    for (let i = 0; i < items.length; i += INSERT_CHUNK) {
      inserted += (await insertOccurrencesOfSchedules(tx, "scheduled", items.slice(i, i + INSERT_CHUNK))).length;
    }
  }
  const moved = schedules.filter((s) => s.plannedThrough?.getTime() !== cursors.get(s.id)!.getTime());
  if (moved.length > 0) {
    await tx.query(
      `UPDATE schedules s SET planned_through = u.cursor FROM unnest($1::uuid[], $2::timestamptz[]) AS u(id, cursor) WHERE s.id = u.id`,
      [moved.map((s) => s.id), moved.map((s) => cursors.get(s.id)!.toISOString())],
    );
  }
  return inserted;
}

/** One schedule (resume, tests); the caller holds its row lock. */
export function planScheduleThrough(tx: Queryable, schedule: Schedule, until: Date): Promise<number> {
  return planSchedulesThrough(tx, [schedule], until);
}

const INSERT_CHUNK = 5000;
