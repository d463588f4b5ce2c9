// Occurrence rows: one per planned firing, written before it is due. Inserting is idempotent
// (ON CONFLICT DO NOTHING on the (schedule, planned_at) and idempotency-key unique indexes), so any number
// of planners, retries or crashed ticks produce each occurrence once.
import type { Queryable } from "../../db/pool";
import { computeNextFireTimes } from "../../schedules/compute-next-fire-times";
import { snapshotColumns, snapshotValues } from "../schedule-snapshot";
import { FATES_WITH_A_ROW, planFires, type FirePlanSchedule, type PlannedFire } from "../../schedules/fire-plan";
import { MAX_FIRE_TIMES } from "../../schedules/fire-time";
import type { RunKind } from "../run-states";

export interface OccurrenceInput {
  /** Chosen by the caller when the key must contain it (manual runs); generated otherwise. */
  id?: string;
  plannedAt: Date;
  /** The trigger's own instant when a calendar moved the fire (fire-plan.ts); planned_at otherwise. */
  nominalAt?: Date;
  dueAt: Date;
  idempotencyKey: string;
  /** Written already in this state (the fire plan's `excluded`); planned otherwise. */
  state?: "planned" | "excluded";
  /** The row's first event's message (why it is excluded, how a calendar moved it); opts.message otherwise. */
  message?: string;
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
 * actually inserted. A scheduled occurrence of a schedule that runs after others is written waiting for them
 * (wait_reason 'upstream'; core/runs/chain/release-chained-runs.ts releases it). Rows that already exist are left alone. Returns the inserted ones.
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
  const base = opts.recordPaused ? "paused" : "planned";
  const { rows } = await db.query<{ id: string; schedule_id: string; planned_at: Date }>(
    `WITH ins AS (
       INSERT INTO runs (id, schedule_id, kind, planned_at, nominal_at, due_at, idempotency_key, state, wait_reason,
                         ${snapshotColumns()})
       SELECT coalesce(p.id, gen_random_uuid()), s.id, $1, p.planned_at, p.nominal_at, p.due_at, p.key, p.state,
              coalesce($6, CASE WHEN $1 = 'scheduled' AND p.state = 'planned'
                                 AND EXISTS (SELECT 1 FROM schedule_dependencies d WHERE d.schedule_id = s.id) THEN 'upstream' END),
              ${snapshotValues("s")}
         FROM unnest($2::uuid[], $3::timestamptz[], $4::timestamptz[], $5::text[], $9::uuid[], $10::timestamptz[], $11::text[],
                     $12::text[]) AS p(schedule_id, planned_at, due_at, key, id, nominal_at, state, message)
         JOIN schedules s ON s.id = p.schedule_id
       ON CONFLICT DO NOTHING
       RETURNING id, schedule_id, planned_at, state, idempotency_key
     ), ev AS (
       INSERT INTO run_events (run_id, type, message, data)
       SELECT ins.id, ins.state, coalesce(p.message, $7), $8::jsonb
         FROM ins JOIN unnest($5::text[], $12::text[]) AS p(key, message) ON p.key = ins.idempotency_key
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
      items.map((i) => (i.nominalAt ?? (kind === "manual" ? null : i.plannedAt))?.toISOString() ?? null),
      items.map((i) => i.state ?? base),
      items.map((i) => i.message ?? null),
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
 * The schedule's fires in (from, until] as occurrence rows to insert, and the cursor after them: exactly what the
 * fire plan (core/schedules/fire-plan.ts) says of each. A fire that runs or is held by a pause gets a planned row
 * at its planned instant (a paused one is recorded `paused` as it passes, core/runs/plan/mark-missed-runs.ts); an
 * excluded one a terminal `excluded` row at its own instant with the reason as its event; one before the start
 * date, after the end date or dropped by a DST gap gets no row (the plan says why). The key is per nominal fire.
 * The cursor keeps its meaning, every fire at or before it has what the plan gives it: it is just before the
 * first fire after `until` (at most MAX_CURSOR_SKIP_MS past it), or the last fire when the range held more than
 * one call's worth (the rest is planned from there next time).
 */
export function occurrencesBetween(
  schedule: FirePlanSchedule,
  range: { from: Date; until: Date },
): { items: (OccurrenceInput & { scheduleId: string })[]; cursor: Date } {
  if (range.until.getTime() <= range.from.getTime()) return { items: [], cursor: range.from };
  const anchor = schedule.createdAt;
  const plan = planFires(schedule, range, { limit: MAX_PLANNED_PER_CALL });
  const items = plan.fires.filter((f) => (FATES_WITH_A_ROW as readonly string[]).includes(f.fate)).map((f) => occurrenceOf(schedule.id, f));
  if (plan.cut) return { items, cursor: plan.fires.filter((f) => !f.dst?.skipped).at(-1)!.nominalAt };
  // A schedule past its end date fires no more: its cursor may go as far as the skip allows.
  const skipTo = range.until.getTime() + MAX_CURSOR_SKIP_MS;
  const next = computeNextFireTimes(schedule.trigger, range.until, 1, { anchor, until: new Date(skipTo) })[0];
  return { items, cursor: new Date(next ? next.at.getTime() - 1 : skipTo) };
}

/** The row a planned fire gets (fates in FATES_WITH_A_ROW). */
export function occurrenceOf(scheduleId: string, f: PlannedFire): OccurrenceInput & { scheduleId: string } {
  const excluded = f.fate === "excluded";
  return {
    scheduleId,
    plannedAt: f.plannedAt,
    nominalAt: f.nominalAt,
    dueAt: excluded ? f.plannedAt : withJitter(f.plannedAt, f.jitterMs),
    idempotencyKey: occurrenceKey("scheduled", scheduleId, f.nominalAt),
    ...(excluded ? { state: "excluded" as const } : {}),
    ...(f.reason && f.fate !== "paused" ? { message: f.reason } : {}),
  };
}
