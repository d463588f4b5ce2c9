// Trigger now: one extra run of the schedule, kind 'manual', due at once, with its own idempotency key
// (manual:<scheduleId>:<runId>). It is enqueued by the planners (woken by NOTIFY), also while the schedule is
// paused — an operator asked for it explicitly; the overlap policy still applies when it starts.
import crypto from "node:crypto";
import { z } from "zod";
import type { Actor } from "../auth/roles";
import { recordAudit } from "../audit/record-audit";
import { dbNow, type Queryable } from "../db/pool";
import { insertOccurrences, occurrenceKey } from "../runs/plan-occurrences";
import { inTransaction } from "./dry-run";
import { notifyPlanner } from "./notify-planner";
import type { ActionResult } from "./pause-schedule";
import { getScheduleOrThrow } from "./schedule-record";
import { parseOrThrow } from "./validate-schedule-input";

export const triggerNowInputSchema = z.strictObject({
  dryRun: z.boolean({ error: "dryRun must be true or false" }).optional(),
  reason: z.string({ error: "Reason must be a string" }).max(500, { error: "Reason must be at most 500 characters" }).optional(),
});

export interface TriggerNowResult extends ActionResult {
  /** The new run (null on a dry run). */
  runId: string | null;
}

export async function triggerNow(id: string, input: unknown, actor: Actor, opts: { db?: Queryable } = {}): Promise<TriggerNowResult> {
  const v = parseOrThrow(triggerNowInputSchema, input ?? {});
  const dryRun = v.dryRun ?? false;
  return inTransaction({ tx: opts.db, dryRun }, async (tx) => {
    const schedule = await getScheduleOrThrow(tx, id);
    const now = await dbNow(tx);
    const runId = crypto.randomUUID();
    const key = occurrenceKey("manual", schedule.id, now, runId);
    await insertOccurrences(tx, schedule.id, "manual", [{ id: runId, plannedAt: now, dueAt: now, idempotencyKey: key }], {
      message: `triggered by ${actor.label}${v.reason ? ` (${v.reason})` : ""}`,
    });
    await recordAudit(tx, {
      actor,
      action: "schedule.trigger",
      targetType: "schedule",
      targetId: schedule.id,
      after: { runId, plannedAt: now.toISOString() },
      reason: v.reason ?? null,
    });
    await notifyPlanner(tx, schedule.id);
    return { dryRun, count: 1, plannedAt: [now.toISOString()], runId: dryRun ? null : runId };
  });
}
