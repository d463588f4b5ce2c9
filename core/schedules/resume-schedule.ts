// Resuming a schedule: the fires that fell inside the pause are settled by its misfire policy — the newest
// (none for skip, one for run_once, up to catch_up_limit for catch_up) run now, one at a time, the rest are
// recorded `paused` — and planning continues. The planner resumes a schedule by itself at its `until` time
// (audited as the system action schedule.auto_resume). A dry run reports exactly what a resume would enqueue.
import { z } from "zod";
import { systemActor, type Actor } from "../auth/roles";
import { recordAudits } from "../audit/record-audit";
import { inTransaction, dbNow, type Queryable } from "../db/pool";
import { ConflictError } from "../errors";
import { pauseOverSql } from "../runs/paused";
import { decideResume } from "../runs/plan/mark-missed-decision";
import { applyMisfireDecisions, lockPendingRunsOf } from "../runs/plan/mark-missed-runs";
import { planSchedulesThrough } from "../runs/plan/plan-due-schedules";
import { notifyPlanner } from "./notify-planner";
import { recordPausedFires } from "./record-paused-fires";
import type { ActionResult } from "./pause-schedule";
import { getScheduleOrThrow, type Schedule } from "./schedule-record";
import { assertMayRunSchedules, assertMayUseHandlers } from "../auth/program-permission";

export const resumeInputSchema = z.strictObject({
  dryRun: z.boolean({ error: "dryRun must be true or false" }).optional(),
});

export type ResumeInput = z.output<typeof resumeInputSchema>;

export interface ResumeResult extends ActionResult {
  /** Fires of this pause recorded as `paused` (not run), by the planner as they passed or by the resume. */
  recordedPaused: number;
  misfirePolicy: Schedule["misfirePolicy"];
}

/** `v` is parsed by resumeInputSchema (the API route's body schema). */
export async function resumeSchedule(id: string, v: ResumeInput, actor: Actor, opts: { db?: Queryable } = {}): Promise<ResumeResult> {
  const dryRun = v.dryRun ?? false;
  return inTransaction({ tx: opts.db, dryRun }, async (tx) => {
    const schedule = await getScheduleOrThrow(tx, id, { lock: true });
    return { dryRun, ...(await resumeInTransaction(tx, schedule, actor)) };
  });
}

/** Resumes every schedule whose pause has reached its `until` (database clock); returns how many. */
export async function autoResumeDueSchedules(db: Queryable): Promise<number> {
  const { rows } = await db.query<{ id: string }>(`SELECT s.id FROM schedules s WHERE ${pauseOverSql("s")} AND s.deleted_at IS NULL`);
  let n = 0;
  for (const { id } of rows) {
    const done = await inTransaction({}, async (tx) => {
      const { rows: locked } = await tx.query<{ id: string }>(
        `SELECT s.id FROM schedules s WHERE s.id = $1 AND ${pauseOverSql("s")}
            AND s.deleted_at IS NULL FOR UPDATE SKIP LOCKED`,
        [id],
      );
      if (!locked[0]) return false;
      await resumeInTransaction(tx, await getScheduleOrThrow(tx, id), systemActor("planner"), { auto: true });
      return true;
    });
    if (done) n++;
  }
  return n;
}

/** The caller holds the schedule's row lock. */
export async function resumeInTransaction(
  tx: Queryable,
  schedule: Schedule,
  actor: Actor,
  opts: { auto?: boolean } = {},
): Promise<Omit<ResumeResult, "dryRun">> {
  return (await resumeSchedulesInTransaction(tx, [schedule], actor, opts)).get(schedule.id)!;
}

/**
 * Resumes many schedules with a few statements for the whole set (a maintenance resume settles thousands): the
 * same misfire decision per schedule as one resume, one audit row per schedule. The caller holds the schedules'
 * row locks. Results per schedule id.
 */
export async function resumeSchedulesInTransaction(
  tx: Queryable,
  schedules: readonly Schedule[],
  actor: Actor,
  opts: { auto?: boolean } = {},
): Promise<Map<string, Omit<ResumeResult, "dryRun">>> {
  const out = new Map<string, Omit<ResumeResult, "dryRun">>();
  if (schedules.length === 0) return out;
  // Resuming (or enabling, or ending a maintenance window) makes the program run again, with its catch-up.
  await assertMayUseHandlers(
    tx,
    actor,
    schedules.map((s) => s.handler),
  );
  await assertMayRunSchedules(
    tx,
    actor,
    schedules.map((s) => s.id),
  );
  const ids = schedules.map((s) => s.id);
  // The auto-resume clears a pause that is already over (not paused for anyone since its `until`); an operator
  // resumes one that is still in effect.
  const { rows: recorded } = await tx.query<{ id: string; at: Date | null; by: string | null; reason: string | null; until: Date | null }>(
    `SELECT id, paused_at AS at, paused_by AS by, pause_reason AS reason, paused_until AS until FROM schedules WHERE id = ANY($1::uuid[])`,
    [ids],
  );
  const recordedPause = new Map(recorded.map((r) => [r.id, r]));
  const pauses = new Map(schedules.map((s) => [s.id, opts.auto ? recordedPause.get(s.id) : s.paused]));
  const notPaused = schedules.find((s) => !pauses.get(s.id)?.at);
  if (notPaused) {
    throw new ConflictError(`Schedule ${notPaused.name} is not paused.`, "not_paused");
  }
  await tx.query(
    `UPDATE schedules SET paused_at = NULL, paused_by = NULL, pause_reason = NULL, paused_until = NULL, enabled = true, maintenance_id = NULL
      WHERE id = ANY($1::uuid[])`,
    [ids],
  );
  // Every fire up to now must have its row before the policy picks among them (workers may all have been down).
  const now = await dbNow(tx);
  await planSchedulesThrough(tx, await recordPausedFires(tx, schedules, now), now);
  const pendingOf = await lockPendingRunsOf(tx, ids);
  const items = schedules.map((schedule) => {
    const pending = pendingOf.get(schedule.id)!.filter((r) => r.kind === "scheduled" && r.waitReason === null);
    return { schedule, pending, decision: { missed: [], ...decideResume(pending, schedule) } };
  });
  await applyMisfireDecisions(tx, items, "resume");
  // Fires of each pause recorded paused, by earlier planner sweeps or just now.
  const { rows: counted } = await tx.query<{ id: string; n: number }>(
    `SELECT p.id, count(r.id)::int AS n
       FROM unnest($1::uuid[], $2::timestamptz[]) AS p(id, at)
       LEFT JOIN runs r ON r.schedule_id = p.id AND r.kind = 'scheduled' AND r.state = 'paused' AND r.planned_at >= p.at
      GROUP BY p.id`,
    [ids, ids.map((id) => pauses.get(id)!.at!.toISOString())],
  );
  const recordedPaused = new Map(counted.map((r) => [r.id, r.n]));
  for (const { schedule, pending, decision } of items) {
    const at = new Map(pending.map((r) => [r.id, r.plannedAt]));
    const plannedAt = decision.rescue
      .map((id) => at.get(id)!)
      .sort((a, b) => a.getTime() - b.getTime())
      .map((d) => d.toISOString());
    out.set(schedule.id, {
      count: plannedAt.length,
      plannedAt,
      recordedPaused: recordedPaused.get(schedule.id) ?? 0,
      misfirePolicy: schedule.misfirePolicy,
    });
  }
  await recordAudits(
    tx,
    schedules.map((schedule) => {
      const pause = pauses.get(schedule.id)!;
      const r = out.get(schedule.id)!;
      return {
        actor,
        action: opts.auto ? "schedule.auto_resume" : "schedule.resume",
        targetType: "schedule",
        targetId: schedule.id,
        before: { paused: true, by: pause.by, reason: pause.reason, until: pause.until?.toISOString() ?? null },
        after: { paused: false, misfirePolicy: schedule.misfirePolicy, runsEnqueued: r.count, recordedPaused: r.recordedPaused },
        reason: opts.auto ? "pause reached its until time" : null,
      };
    }),
  );
  // The planners read no payload: one notification wakes them for the whole set.
  await notifyPlanner(tx, ids[0]!);
  return out;
}
