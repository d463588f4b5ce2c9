// Resuming a schedule: the fires that fell inside the pause are settled by its misfire policy — the newest
// (none for skip, one for run_once, up to catch_up_limit for catch_up) run now, one at a time, the rest are
// recorded `paused` — and planning continues. The planner resumes a schedule by itself at its `until` time
// (audited as the system action schedule.auto_resume). A dry run reports exactly what a resume would enqueue.
import { z } from "zod";
import { systemActor, type Actor } from "../auth/roles";
import { recordAudit } from "../audit/record-audit";
import { inTransaction, dbNow, type Queryable } from "../db/pool";
import { ConflictError } from "../errors";
import { pauseOverSql } from "../runs/paused";
import { decideResume } from "../runs/plan/mark-missed-decision";
import { applyMisfireDecision, lockPendingRuns } from "../runs/plan/mark-missed-runs";
import { planScheduleThrough } from "../runs/plan/plan-due-schedules";
import { notifyPlanner } from "./notify-planner";
import type { ActionResult } from "./pause-schedule";
import { getScheduleOrThrow, type Schedule } from "./schedule-record";

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
  // The auto-resume clears a pause that is already over (not paused for anyone since its `until`); an operator
  // resumes one that is still in effect.
  const { rows: recorded } = await tx.query<{ at: Date | null; by: string | null; reason: string | null; until: Date | null }>(
    `SELECT paused_at AS at, paused_by AS by, pause_reason AS reason, paused_until AS until FROM schedules WHERE id = $1`,
    [schedule.id],
  );
  const pause = opts.auto ? recorded[0] : schedule.paused;
  if (!pause?.at) {
    throw new ConflictError(`Schedule ${schedule.name} is not paused.`, "not_paused");
  }
  await tx.query(
    `UPDATE schedules SET paused_at = NULL, paused_by = NULL, pause_reason = NULL, paused_until = NULL, enabled = true, maintenance_id = NULL
      WHERE id = $1`,
    [schedule.id],
  );
  // Every fire up to now must have its row before the policy picks among them (workers may all have been down).
  await planScheduleThrough(tx, schedule, await dbNow(tx));
  const pending = (await lockPendingRuns(tx, schedule.id)).filter((r) => r.kind === "scheduled" && r.waitReason === null);
  const decision = decideResume(pending, schedule);
  await applyMisfireDecision(tx, schedule, { missed: [], ...decision }, pending, "resume");
  const at = new Map(pending.map((r) => [r.id, r.plannedAt]));
  // Fires of this pause recorded paused, by earlier planner sweeps or just now.
  const { rows: counted } = await tx.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM runs WHERE schedule_id = $1 AND kind = 'scheduled' AND state = 'paused' AND planned_at >= $2`,
    [schedule.id, pause.at.toISOString()],
  );
  const recordedPaused = counted[0]!.n;
  const plannedAt = decision.rescue
    .map((id) => at.get(id)!)
    .sort((a, b) => a.getTime() - b.getTime())
    .map((d) => d.toISOString());
  await recordAudit(tx, {
    actor,
    action: opts.auto ? "schedule.auto_resume" : "schedule.resume",
    targetType: "schedule",
    targetId: schedule.id,
    before: { paused: true, by: pause.by, reason: pause.reason, until: pause.until?.toISOString() ?? null },
    after: { paused: false, misfirePolicy: schedule.misfirePolicy, runsEnqueued: plannedAt.length, recordedPaused },
    reason: opts.auto ? "pause reached its until time" : null,
  });
  await notifyPlanner(tx, schedule.id);
  return { count: plannedAt.length, plannedAt, recordedPaused, misfirePolicy: schedule.misfirePolicy };
}
