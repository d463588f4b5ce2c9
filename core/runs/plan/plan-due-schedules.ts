// The planning step of a planner tick: every live schedule whose cursor (planned_through; a schedule never planned
// starts at its creation instant) is less than half a horizon ahead of the database clock gets its fires up to
// now + horizon written as occurrences. Work goes in slices, most urgent first (the cursor that ends soonest), one
// transaction each: the schedules are taken FOR NO KEY UPDATE SKIP LOCKED, so planners on several workers take disjoint
// slices, and the inserts are idempotent anyway. With a time budget a tick plans what fits and says whether more
// is waiting: 100,000 schedules created at once are caught up over ticks, and the enqueue of due runs, which the
// tick does first, never waits behind a long first plan.
import type pg from "pg";
import { withTransaction, type Queryable } from "../../db/pool";
import { getLogger } from "../../log";
import { loadScheduleCalendars } from "../../calendars/calendar-rules";
import type { FirePlanSchedule } from "../../schedules/fire-plan";
import { storedTrigger, type Schedule } from "../../schedules/schedule-record";
import { isPaused } from "../paused";
import type { Trigger } from "../../schedules/trigger";
import { insertOccurrencesOfSchedules, occurrencesBetween, type OccurrenceInput } from "./plan-occurrences";

export interface PlanStepResult {
  schedules: number;
  inserted: number;
  /** Slices written (one transaction each). */
  slices: number;
  /** The budget ran out with schedules still due for planning: the caller may tick again soon. */
  more: boolean;
}

/** What planning reads of a schedule: what its fire plan needs (fire-plan.ts) but its calendar links, and its cursor. */
export type PlanTarget = Omit<FirePlanSchedule, "calendars"> & Pick<Schedule, "plannedThrough">;

export async function planDueSchedules(
  pool: pg.Pool,
  opts: {
    horizonSeconds: number;
    /** Schedules per slice (one transaction: one SELECT, one INSERT of all their fires, one UPDATE of their cursors). */
    batchSize?: number;
    /** Stop starting slices once this long has passed (monotonic clock; a slice under way finishes). */
    budgetMs?: number;
    maxBatches?: number;
  },
): Promise<PlanStepResult> {
  const batchSize = opts.batchSize ?? 250;
  const maxBatches = opts.maxBatches ?? (opts.budgetMs === undefined ? 25 : Infinity);
  const started = performance.now();
  const result: PlanStepResult = { schedules: 0, inserted: 0, slices: 0, more: false };
  for (;;) {
    // At least one slice per call, however small the budget: planning always progresses.
    const overBudget = opts.budgetMs !== undefined && result.slices > 0 && performance.now() - started >= opts.budgetMs;
    if (result.slices >= maxBatches || overBudget) {
      result.more = true;
      break;
    }
    const n = await withTransaction(async (tx) => {
      const { targets, locked, dbNow } = await lockDueSlice(tx, opts.horizonSeconds, batchSize);
      if (targets.length > 0)
        result.inserted += await planSchedulesThrough(tx, targets, new Date(dbNow.getTime() + opts.horizonSeconds * 1000));
      return locked;
    }, pool);
    result.schedules += n;
    if (n > 0) result.slices++;
    if (n < batchSize) break;
  }
  return result;
}

/**
 * The next slice: live schedules whose cursor is under now + half a horizon, least advanced first. `now()` (the
 * transaction's start, a moment ago) rather than clock_timestamp() in the condition, so it is an index range
 * (schedules_plan_cursor_idx) that stops where the due ones end instead of filtering every schedule. FOR NO KEY
 * UPDATE, the weakest lock that keeps planners (and the sweep, the enqueue) off the slice: planning only moves the
 * cursor, so the claim of an 'allow' run (FOR KEY SHARE) and foreign-key checks of rows inserted for these
 * schedules need not wait for the slice to commit.
 */
async function lockDueSlice(
  tx: Queryable,
  horizonSeconds: number,
  limit: number,
): Promise<{ targets: PlanTarget[]; locked: number; dbNow: Date }> {
  const { rows } = await tx.query<{
    id: string;
    trigger: string;
    created_at: Date;
    start_jitter_ms: number;
    planned_through: Date | null;
    timezone: string;
    paused_at: Date | null;
    paused_until: Date | null;
    starts_at: Date | null;
    ends_at: Date | null;
    misfire_policy: Schedule["misfirePolicy"];
    catch_up_limit: number;
    db_now: Date;
  }>(
    `SELECT s.id, s.trigger::text AS trigger, s.created_at, s.start_jitter_ms, s.planned_through, s.timezone, s.paused_at,
            s.paused_until, s.starts_at, s.ends_at, s.misfire_policy, s.catch_up_limit, clock_timestamp() AS db_now
       FROM schedules s
      WHERE s.deleted_at IS NULL
        AND coalesce(s.planned_through, s.created_at) < now() + make_interval(secs => $1::float8 / 2)
      ORDER BY coalesce(s.planned_through, s.created_at), s.id
      LIMIT $2
        FOR NO KEY UPDATE OF s SKIP LOCKED`,
    [horizonSeconds, limit],
  );
  const targets: PlanTarget[] = [];
  for (const r of rows) {
    try {
      const trigger = cachedTrigger(r.trigger);
      const paused = isPaused({ at: r.paused_at, until: r.paused_until }, r.db_now);
      targets.push({
        id: r.id,
        trigger,
        createdAt: r.created_at,
        startJitterMs: r.start_jitter_ms,
        plannedThrough: r.planned_through,
        timezone: r.timezone,
        paused: paused && r.paused_at ? { at: r.paused_at, by: null, reason: null, until: r.paused_until } : null,
        startsAt: r.starts_at,
        endsAt: r.ends_at,
        misfirePolicy: r.misfire_policy,
        catchUpLimit: r.catch_up_limit,
      });
    } catch (err) {
      // A stored trigger that no longer parses: left unplanned like one whose fires cannot be computed (its cursor
      // stays, so it shows as lag), without holding back the rest of the slice.
      getLogger().error({ err, scheduleId: r.id, trigger: r.trigger }, "cannot read this schedule's trigger; it is not planned");
    }
  }
  return { targets, locked: rows.length, dbNow: rows[0]?.db_now ?? new Date(NaN) };
}

// Stored triggers by their JSON text: thousands of schedules share a few expressions, and each is planned again
// every half horizon. Bounded like the parsed-cron cache below it (cron-fire-times.ts).
const triggers = new Map<string, Trigger>();
const TRIGGERS_MAX = 20_000;

function cachedTrigger(text: string): Trigger {
  const hit = triggers.get(text);
  if (hit) return hit;
  const trigger = storedTrigger(JSON.parse(text));
  if (triggers.size >= TRIGGERS_MAX) triggers.clear();
  triggers.set(text, trigger);
  return trigger;
}

/**
 * Writes the schedules' fires from their cursors through `until` (a long gap, e.g. after downtime, over several
 * rounds) as their fire plans say (plan-occurrences.ts occurrencesBetween, with their calendar links) and moves
 * their cursors; one INSERT and one UPDATE per round for all of them. The caller holds the schedules' row locks.
 * Returns rows inserted.
 */
export async function planSchedulesThrough(
  tx: Queryable,
  targets: readonly PlanTarget[],
  until: Date,
  opts: { maxRounds?: number } = {},
): Promise<number> {
  const maxRounds = opts.maxRounds ?? 10;
  const links = await loadScheduleCalendars(
    tx,
    targets.map((t) => t.id),
  );
  const schedules = targets.map((t) => ({ ...t, calendars: links.get(t.id) ?? [] }));
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
        for (const item of planned.items) items.push(item);
        cursors.set(s.id, planned.cursor);
      } catch (err) {
        // One schedule whose fire times cannot be computed must not stop the others from being planned. Its
        // cursor stays put, so it shows as planner lag (and alerts) until it is fixed.
        broken.add(s.id);
        getLogger().error({ err, scheduleId: s.id, trigger: s.trigger }, "cannot compute this schedule's fire times; it is not planned");
      }
    }
    for (let i = 0; i < items.length; i += INSERT_CHUNK) {
      inserted += (await insertOccurrencesOfSchedules(tx, "scheduled", items.slice(i, i + INSERT_CHUNK))).length;
    }
    if (!schedules.some((s) => cursors.get(s.id)!.getTime() < until.getTime() && !broken.has(s.id))) break;
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
export function planScheduleThrough(tx: Queryable, schedule: PlanTarget, until: Date): Promise<number> {
  return planSchedulesThrough(tx, [schedule], until);
}

const INSERT_CHUNK = 5000;
