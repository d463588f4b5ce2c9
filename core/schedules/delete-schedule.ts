// Deleting is soft: the row stays (its runs and audit trail refer to it), its name is freed, it is never
// planned again, and its not-started runs end cancelled. Runs already running finish normally.
import type { Actor } from "../auth/roles";
import { recordAudit } from "../audit/record-audit";
import type { Queryable } from "../db/pool";
import { ConflictError } from "../errors";
import { endUnstartedRuns } from "../runs/operate/end-unstarted-runs";
import { auditView } from "./create-schedule";
import { inTransaction } from "../db/pool";
import { getScheduleOrThrow } from "./schedule-record";
import { assertNoFollowers } from "./schedule-dependencies";

export interface DeleteResult {
  id: string;
  deletedAt: string;
  cancelledRuns: number;
}

export async function deleteSchedule(
  id: string,
  actor: Actor,
  opts: { db?: Queryable; revision?: number; reason?: string | null } = {},
): Promise<DeleteResult> {
  return inTransaction({ tx: opts.db }, async (tx) => {
    const before = await getScheduleOrThrow(tx, id, { lock: true });
    if (opts.revision !== undefined && opts.revision !== before.revision) {
      throw new ConflictError(
        `Schedule ${before.name} was changed since you loaded it (revision ${opts.revision}, now ${before.revision}); reload it before deleting.`,
        "stale_revision",
      );
    }
    await assertNoFollowers(tx, id, before.name);
    const { rows } = await tx.query<{ deleted_at: Date }>(
      `UPDATE schedules SET deleted_at = clock_timestamp(), updated_at = clock_timestamp() WHERE id = $1 RETURNING deleted_at`,
      [id],
    );
    const cancelled = await endUnstartedRuns(tx, id, `schedule ${before.name} was deleted by ${actor.label}`);
    await recordAudit(tx, {
      actor,
      action: "schedule.delete",
      targetType: "schedule",
      targetId: id,
      before: auditView(before),
      after: { deleted: true, cancelledRuns: cancelled.length },
      reason: opts.reason ?? null,
    });
    return { id, deletedAt: rows[0]!.deleted_at.toISOString(), cancelledRuns: cancelled.length };
  });
}
