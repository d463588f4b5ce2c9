// An operator sets a concurrency group's limits from the Groups view (PATCH /api/groups/:name): its concurrency
// limit and its start-rate limit (or removes the rate limit), audited as group.limits_change with before/after and
// an optional reason. The group row is locked for the change, as every claim of the group locks it, so a new or
// changed start-rate limit counts the starts already made in its window (sync-recent-starts.ts). Runs waiting for
// a slot when the concurrency limit is raised are woken by the reaper's next pass (core/runs/locks/wake-waiting-runs.ts).
import { z } from "zod";
import type { Actor } from "../auth/roles";
import { recordAudit } from "../audit/record-audit";
import { inTransaction, type Queryable } from "../db/pool";
import { NotFoundError } from "../errors";
import { scheduleInputSchema } from "../schedules/schedule-input";
import { parseOrThrow } from "../schedules/validate-schedule-input";
import { listGroups, type GroupRow } from "./list-groups";
import { syncRecentStarts } from "./sync-recent-starts";

export const groupLimitsInputSchema = z
  .strictObject({
    concurrencyLimit: scheduleInputSchema.shape.concurrencyLimit,
    /** null removes the start-rate limit; left out keeps it. */
    startRateLimit: scheduleInputSchema.shape.startRateLimit,
    reason: z.string({ error: "Reason must be a string" }).trim().max(500, { error: "Reason must be at most 500 characters" }).optional(),
  })
  .refine((v) => v.concurrencyLimit !== undefined || v.startRateLimit !== undefined, {
    path: ["concurrencyLimit"],
    error: "Give a concurrency limit, a start-rate limit, or both",
  });
export type GroupLimitsInput = z.input<typeof groupLimitsInputSchema>;

export async function setGroupLimits(name: string, input: unknown, actor: Actor, opts: { db?: Queryable } = {}): Promise<GroupRow> {
  const v = parseOrThrow(groupLimitsInputSchema, input ?? {});
  return inTransaction({ tx: opts.db }, async (tx) => {
    const { rows } = await tx.query<{ max_running: number; max_starts: number | null; per_seconds: number | null }>(
      `SELECT max_running, max_starts, per_seconds FROM concurrency_groups WHERE name = $1 FOR UPDATE`,
      [name],
    );
    const was = rows[0];
    if (!was) throw new NotFoundError("Concurrency group", name);
    const before = {
      concurrencyLimit: was.max_running,
      startRateLimit: was.max_starts ? { maxStarts: was.max_starts, perSeconds: was.per_seconds } : null,
    };
    const after = {
      concurrencyLimit: v.concurrencyLimit ?? was.max_running,
      startRateLimit: v.startRateLimit === undefined ? before.startRateLimit : v.startRateLimit,
    };
    await tx.query(`UPDATE concurrency_groups SET max_running = $2, max_starts = $3, per_seconds = $4 WHERE name = $1`, [
      name,
      after.concurrencyLimit,
      after.startRateLimit?.maxStarts ?? null,
      after.startRateLimit?.perSeconds ?? null,
    ]);
    if (JSON.stringify(before.startRateLimit) !== JSON.stringify(after.startRateLimit)) await syncRecentStarts(tx, name);
    await recordAudit(tx, {
      actor,
      action: "group.limits_change",
      targetType: "group",
      targetId: name,
      before,
      after,
      reason: v.reason || null,
    });
    return (await listGroups(tx)).find((g) => g.name === name)!;
  });
}
