// Backfill: run the schedule for the fires of a past range that never ran. Instants that already have a run
// which started or is still pending (of kind scheduled or backfill) are left out, so a backfill never repeats
// an effect; only the fires the schedule's fire plan runs are backfilled (not those its calendars exclude or its
// start/end dates leave out); instants that were missed, paused, skipped for overlap or cancelled — or fall before the schedule
// existed — get a 'backfill' run (key backfill:<scheduleId>:<plannedAt ISO>). Rows are written with one batched
// INSERT (unnest); the planners then enqueue them one at a time per schedule (see enqueue-due-runs.ts), each
// due when its turn comes. At most MAX_BACKFILL fires per request.
import { z } from "zod";
import type { Actor } from "../auth/roles";
import { recordAudit } from "../audit/record-audit";
import { inTransaction, dbNow, type Queryable } from "../db/pool";
import { ValidationError } from "../errors";
import { insertOccurrences, occurrenceKey } from "../runs/plan/plan-occurrences";
import { loadScheduleCalendars } from "../calendars/calendar-rules";
import { computeNextFireTimes } from "./compute-next-fire-times";
import { firePlanOf, planFires, type FirePlanSchedule } from "./fire-plan";
import { notifyPlanner } from "./notify-planner";
import type { ActionResult } from "./pause-schedule";
import { getScheduleOrThrow, type Schedule } from "./schedule-record";
import { assertMayRunSchedules, assertMayUseHandlers } from "../auth/program-permission";
import type { Trigger } from "./trigger";

export const MAX_BACKFILL = 10_000;

const instant = (what: string) =>
  z.iso.datetime({ offset: true, error: `${what} must be an ISO 8601 date-time with an offset, e.g. 2026-11-01T00:00:00Z` });

export const backfillInputSchema = z.strictObject({
  from: instant("From"),
  to: instant("To"),
  dryRun: z.boolean({ error: "dryRun must be true or false" }).optional(),
  reason: z.string({ error: "Reason must be a string" }).max(500, { error: "Reason must be at most 500 characters" }).optional(),
});

export type BackfillInput = z.output<typeof backfillInputSchema>;

export interface BackfillResult extends ActionResult {
  /** Fires of the trigger in [from, to]. */
  fires: number;
  /** Fires left out because they already ran or are pending. */
  alreadyCovered: number;
}

/** `v` is parsed by backfillInputSchema (the API route's body schema); the range is checked here against the database clock. */
export async function backfillSchedule(id: string, v: BackfillInput, actor: Actor, opts: { db?: Queryable } = {}): Promise<BackfillResult> {
  const dryRun = v.dryRun ?? false;
  const from = new Date(v.from);
  const to = new Date(v.to);
  if (to.getTime() < from.getTime()) {
    const message = `To (${v.to}) must not be before From (${v.from})`;
    throw new ValidationError(message, { to: message });
  }
  return inTransaction({ tx: opts.db, dryRun }, async (tx) => {
    const schedule = await getScheduleOrThrow(tx, id);
    await assertMayUseHandlers(tx, actor, [schedule.handler]);
    await assertMayRunSchedules(tx, actor, [schedule.id]);
    const now = await dbNow(tx);
    if (to.getTime() > now.getTime()) {
      const message = `To (${v.to}) is in the future (database time is ${now.toISOString()}); a backfill covers past fires only`;
      throw new ValidationError(message, { to: message });
    }
    const links = await loadScheduleCalendars(tx, [schedule.id]);
    const fires = backfillFireTimes(firePlanOf(schedule, links.get(schedule.id) ?? []), from, to);
    const covered = await coveredInstants(tx, schedule.id, fires);
    const items = fires
      .filter((at) => !covered.has(at.getTime()))
      .map((at) => ({ plannedAt: at, dueAt: now, idempotencyKey: occurrenceKey("backfill", schedule.id, at) }));
    const inserted = await insertOccurrences(tx, schedule.id, "backfill", items, {
      waitReason: "backfill",
      message: `backfill by ${actor.label}`,
    });
    const plannedAt = inserted.map((r) => r.plannedAt.toISOString());
    await recordAudit(tx, {
      actor,
      action: "schedule.backfill",
      targetType: "schedule",
      targetId: schedule.id,
      after: { from: from.toISOString(), to: to.toISOString(), fires: fires.length, enqueued: inserted.length },
      reason: v.reason ?? null,
    });
    await notifyPlanner(tx, schedule.id);
    return { dryRun, count: inserted.length, plannedAt, fires: fires.length, alreadyCovered: fires.length - inserted.length };
  });
}

/**
 * The fires in [from, to] the schedule's fire plan runs (fire-plan.ts: a fire its calendars exclude, or outside
 * its start/end dates, is not backfilled; one a calendar moved is backfilled at its moved instant); refuses a
 * range holding more than MAX_BACKFILL fires of the trigger.
 */
export function backfillFireTimes(schedule: Omit<FirePlanSchedule, "paused">, from: Date, to: Date): Date[] {
  const trigger = extendIntervalGrid(schedule, from);
  const opts = { anchor: schedule.createdAt };
  // planFires is exclusive of its start: begin a millisecond earlier so `from` itself counts. A pause does not hold
  // a backfill (the operator asks for these fires).
  const plan = planFires(
    { ...schedule, trigger, paused: null },
    { from: new Date(from.getTime() - 1), until: to },
    { limit: MAX_BACKFILL },
  );
  const last = plan.fires.filter((f) => f.fate !== "dst_skipped").at(-1);
  if (plan.cut && last && computeNextFireTimes(trigger, last.nominalAt, 1, { ...opts, until: to }).length > 0) {
    const message = `This range holds more than ${MAX_BACKFILL.toLocaleString("en-US")} fires; the ${MAX_BACKFILL.toLocaleString("en-US")}th is at ${last.nominalAt.toISOString()}. Backfill up to there, then continue from the next fire.`;
    throw new ValidationError(message, { to: message }, "backfill_too_large");
  }
  return plan.fires.filter((f) => f.fate === "run").map((f) => f.plannedAt);
}

/**
 * An interval never fires before its anchor when planning, but a backfill may cover time before the schedule
 * existed: the same grid (anchor + k × every) is extended backwards to the range's start.
 */
function extendIntervalGrid(schedule: Pick<Schedule, "trigger" | "createdAt">, from: Date): Trigger {
  const t = schedule.trigger;
  if (t.kind !== "interval") return t;
  const anchor = t.anchor ? Date.parse(t.anchor) : schedule.createdAt.getTime();
  if (from.getTime() >= anchor) return t;
  const every = t.everySeconds * 1000;
  const earlier = anchor - Math.ceil((anchor - from.getTime()) / every) * every;
  return { ...t, anchor: new Date(earlier).toISOString() };
}

async function coveredInstants(tx: Queryable, scheduleId: string, fires: Date[]): Promise<Set<number>> {
  if (fires.length === 0) return new Set();
  const { rows } = await tx.query<{ planned_at: Date }>(
    `SELECT DISTINCT planned_at FROM runs
      WHERE schedule_id = $1 AND planned_at = ANY($2::timestamptz[]) AND kind IN ('scheduled', 'backfill')
        AND state NOT IN ('missed', 'paused', 'excluded', 'skipped_overlap', 'cancelled')`,
    [scheduleId, fires.map((f) => f.toISOString())],
  );
  return new Set(rows.map((r) => r.planned_at.getTime()));
}
