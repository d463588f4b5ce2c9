// Pausing a schedule: nothing of it starts until it is resumed (by an operator, or by the planner at `until`).
// Its fires keep being planned and, as they pass, are recorded `paused` — except the newest ones its misfire
// policy will run on resume, which are held (see core/runs/plan/mark-missed-decision.ts). Runs already queued are
// taken back to 'planned' (held); their pg-boss jobs, if delivered meanwhile, find them not queued and run
// nothing. Manual runs (trigger now) are not held: an operator asked for them explicitly. A run being started
// at the very moment of the pause (row locked by a claim) is left to start.
import { z } from "zod";
import type { Actor } from "../auth/roles";
import { recordAudits } from "../audit/record-audit";
import { inTransaction, dbNow, type Queryable } from "../db/pool";
import { ConflictError, ValidationError } from "../errors";
import { holdQueuedRuns } from "../runs/operate/hold-queued-runs";
import { getScheduleOrThrow, type Schedule } from "./schedule-record";

export const pauseInputSchema = z.strictObject({
  reason: z
    .string({ error: "Reason must be a string: say why the schedule is paused" })
    .trim()
    .min(1, { error: "Say why the schedule is paused (shown to everyone and kept in the audit trail)" })
    .max(500, { error: "Reason must be at most 500 characters" }),
  until: z.iso
    .datetime({ offset: true, error: "Until must be an ISO 8601 date-time with an offset, e.g. 2026-12-01T09:00:00Z" })
    .optional(),
  dryRun: z.boolean({ error: "dryRun must be true or false" }).optional(),
});
export type PauseInput = z.output<typeof pauseInputSchema>;

/** What an operator action will enqueue (dry run) or enqueued: the same shape for every action. */
export interface ActionResult {
  dryRun: boolean;
  /** Runs the action enqueues (to start as soon as possible, or at their planned times). */
  count: number;
  plannedAt: string[];
}

export interface PauseResult extends ActionResult {
  /** Not-started runs held by the pause. */
  held: number;
  pausedUntil: string | null;
}

/** `v` is parsed by pauseInputSchema (the API route's body schema). */
export async function pauseSchedule(id: string, v: PauseInput, actor: Actor, opts: { db?: Queryable } = {}): Promise<PauseResult> {
  const dryRun = v.dryRun ?? false;
  return inTransaction({ tx: opts.db, dryRun }, async (tx) => {
    const schedule = await getScheduleOrThrow(tx, id, { lock: true });
    const until = v.until ? new Date(v.until) : null;
    const held = await pauseInTransaction(tx, schedule, { reason: v.reason, until }, actor);
    return { dryRun, count: 0, plannedAt: [], held, pausedUntil: until?.toISOString() ?? null };
  });
}

/** The caller holds the schedule's row lock. Returns how many not-started runs are now held. */
export async function pauseInTransaction(tx: Queryable, schedule: Schedule, p: PauseParams, actor: Actor): Promise<number> {
  return (await pauseSchedulesInTransaction(tx, [schedule], p, actor)).get(schedule.id)!;
}

export interface PauseParams {
  reason: string;
  until: Date | null;
  /** The maintenance window pausing them (maintenance.ts), if any. */
  maintenanceId?: string;
}

/**
 * Pauses many schedules with a few statements for the whole set (a maintenance action pauses thousands): one
 * audit row per schedule, one event per held run. The caller holds the schedules' row locks. Returns, per
 * schedule id, how many not-started runs are now held.
 */
export async function pauseSchedulesInTransaction(
  tx: Queryable,
  schedules: readonly Schedule[],
  p: PauseParams,
  actor: Actor,
): Promise<Map<string, number>> {
  const already = schedules.find((s) => s.paused);
  if (already) {
    throw new ConflictError(
      `Schedule ${already.name} is already paused (by ${already.paused!.by ?? "unknown"}: ${already.paused!.reason ?? "no reason"}); resume it first to pause it differently.`,
      "already_paused",
    );
  }
  const now = await dbNow(tx);
  if (p.until && p.until.getTime() <= now.getTime()) {
    const message = `Until (${p.until.toISOString()}) must be in the future (database time is ${now.toISOString()})`;
    throw new ValidationError(message, { until: message });
  }
  const ids = schedules.map((s) => s.id);
  const held = new Map(ids.map((id) => [id, 0]));
  if (ids.length === 0) return held;
  await tx.query(
    `UPDATE schedules SET paused_at = clock_timestamp(), paused_by = $2, pause_reason = $3, paused_until = $4, enabled = false,
            maintenance_id = $5
      WHERE id = ANY($1::uuid[])`,
    [ids, actor.label, p.reason, p.until?.toISOString() ?? null, p.maintenanceId ?? null],
  );
  const rows = await holdQueuedRuns(tx, ids, `held: schedule paused by ${actor.label} (${p.reason})`);
  for (const r of rows) held.set(r.schedule_id, held.get(r.schedule_id)! + 1);
  await recordAudits(
    tx,
    schedules.map((s) => ({
      actor,
      action: "schedule.pause",
      targetType: "schedule",
      targetId: s.id,
      before: { paused: false },
      after: {
        paused: true,
        until: p.until?.toISOString() ?? null,
        heldRuns: held.get(s.id)!,
        ...(p.maintenanceId ? { maintenanceId: p.maintenanceId } : {}),
      },
      reason: p.reason,
    })),
  );
  return held;
}
