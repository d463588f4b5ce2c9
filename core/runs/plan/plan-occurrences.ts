// Occurrence rows: one per planned firing, written before it is due. Inserting is idempotent
// (ON CONFLICT DO NOTHING on the (schedule, planned_at) and idempotency-key unique indexes), so any number
// of planners, retries or crashed ticks produce each occurrence once.
import type { Queryable } from "../../db/pool";
import { computeFireTimesBetween, computeNextFireTimes } from "../../schedules/compute-next-fire-times";
import { MAX_FIRE_TIMES } from "../../schedules/fire-time";
import type { Schedule } from "../../schedules/schedule-record";
import type { RunKind } from "../run-states";

export interface OccurrenceInput {
  /** Chosen by the caller when the key must contain it (manual runs); generated otherwise. */
  id?: string;
  plannedAt: Date;
  dueAt: Date;
  idempotencyKey: string;
}

export interface InsertedOccurrence {
  id: string;
  plannedAt: Date;
}

/** The idempotency key handed to the handler (engine contract): stable for one firing of one schedule. */
export function occurrenceKey(kind: RunKind, scheduleId: string, plannedAt: Date, runId?: string): string {
  if (kind === "scheduled") return `${scheduleId}:${plannedAt.toISOString()}`;
  if (kind === "backfill") return `backfill:${scheduleId}:${plannedAt.toISOString()}`;
  if (!runId) throw new Error("A manual run's key needs its run id");
  return `manual:${scheduleId}:${runId}`;
}

/** due_at = planned_at + a random start jitter in [0, jitterMs], spreading schedules that share a second. */
export function withJitter(plannedAt: Date, jitterMs: number): Date {
  if (jitterMs <= 0) return plannedAt;
  return new Date(plannedAt.getTime() + Math.floor(Math.random() * (jitterMs + 1)));
}

/**
 * Inserts occurrences in one statement (unnest of arrays), snapshotting what execution needs from each row's
 * schedule (handler, payload, timeout, grace, attempts, group), and writes a 'planned' event for each row
 * actually inserted. Rows that already exist are left alone. Returns the inserted ones.
 */
export async function insertOccurrences(
  db: Queryable,
  scheduleId: string,
  kind: RunKind,
  items: readonly OccurrenceInput[],
  opts: { waitReason?: string | null; message?: string; data?: Record<string, unknown> } = {},
): Promise<InsertedOccurrence[]> {
  return insertOccurrencesOfSchedules(
    db,
    kind,
    items.map((i) => ({ ...i, scheduleId })),
    opts,
  );
}

/**
 * The same for occurrences of many schedules at once (a planner batch): still one statement. `recordPaused`: the
 * rows are written already `paused` with a 'paused' event instead (a resume's fires that fell inside the pause and
 * that its misfire policy does not run: one insert instead of an insert and an update of each).
 */
export async function insertOccurrencesOfSchedules(
  db: Queryable,
  kind: RunKind,
  items: readonly (OccurrenceInput & { scheduleId: string })[],
  opts: { waitReason?: string | null; message?: string; data?: Record<string, unknown>; recordPaused?: boolean } = {},
): Promise<(InsertedOccurrence & { scheduleId: string })[]> {
  if (items.length === 0) return [];
  const { rows } = await db.query<{ id: string; schedule_id: string; planned_at: Date }>(
    `WITH ins AS (
       INSERT INTO runs (id, schedule_id, kind, planned_at, due_at, idempotency_key, state, wait_reason, handler, payload,
                         timeout_seconds, grace_seconds, max_attempts, concurrency_group)
       SELECT coalesce(p.id, gen_random_uuid()), s.id, $1, p.planned_at, p.due_at, p.key, $10, $6, s.handler, s.payload,
              s.timeout_seconds, s.grace_seconds, s.retry_max_attempts, s.concurrency_group
         FROM unnest($2::uuid[], $3::timestamptz[], $4::timestamptz[], $5::text[], $9::uuid[]) AS p(schedule_id, planned_at, due_at, key, id)
         JOIN schedules s ON s.id = p.schedule_id
       ON CONFLICT DO NOTHING
       RETURNING id, schedule_id, planned_at
     ), ev AS (
       INSERT INTO run_events (run_id, type, message, data) SELECT id, $10, $7, $8::jsonb FROM ins
     )
     SELECT id, schedule_id, planned_at FROM ins ORDER BY planned_at`,
    [
      kind,
      items.map((i) => i.scheduleId),
      items.map((i) => i.plannedAt.toISOString()),
      items.map((i) => i.dueAt.toISOString()),
      items.map((i) => i.idempotencyKey),
      opts.waitReason ?? null,
      opts.message ?? "",
      opts.data ? JSON.stringify(opts.data) : null,
      items.map((i) => i.id ?? null),
      opts.recordPaused ? "paused" : "planned",
    ],
  );
  return rows.map((r) => ({ id: r.id, scheduleId: r.schedule_id, plannedAt: r.planned_at }));
}

/** Fires per planning call; a longer gap is written over several calls, the cursor advancing each time. */
export const MAX_PLANNED_PER_CALL = MAX_FIRE_TIMES;

/**
 * How far past `until` a cursor may move when no fire lies between: an hourly schedule is then re-planned about
 * once an hour rather than every half horizon (100,000 schedules re-planned every minute kept a planner busy
 * full time). A day bounds it for triggers that fire rarely or never again (a one-off in the past).
 */
export const MAX_CURSOR_SKIP_MS = 86_400_000;

/**
 * The schedule's fires in (from, until] as occurrence rows to insert, and the cursor after them. The cursor keeps
 * its meaning, every fire at or before it has a row: it is just before the first fire after `until` (at most
 * MAX_CURSOR_SKIP_MS past it), or the last fire when the range held more than one call's worth (the rest is
 * planned from there next time).
 */
export function occurrencesBetween(
  schedule: Pick<Schedule, "id" | "trigger" | "createdAt" | "startJitterMs">,
  range: { from: Date; until: Date },
): { items: (OccurrenceInput & { scheduleId: string })[]; cursor: Date } {
  if (range.until.getTime() <= range.from.getTime()) return { items: [], cursor: range.from };
  const anchor = schedule.createdAt;
  const fires = computeFireTimesBetween(schedule.trigger, range.from, range.until, { anchor, limit: MAX_PLANNED_PER_CALL });
  const items = fires.map((f) => ({
    scheduleId: schedule.id,
    plannedAt: f.at,
    dueAt: withJitter(f.at, schedule.startJitterMs),
    idempotencyKey: occurrenceKey("scheduled", schedule.id, f.at),
  }));
  if (fires.length === MAX_PLANNED_PER_CALL) return { items, cursor: fires.at(-1)!.at };
  const skipTo = range.until.getTime() + MAX_CURSOR_SKIP_MS;
  const next = computeNextFireTimes(schedule.trigger, range.until, 1, { anchor, until: new Date(skipTo) })[0];
  return { items, cursor: new Date(next ? next.at.getTime() - 1 : skipTo) };
}
