// The not-yet-started runs of a schedule that no longer exists end cancelled, each with its event; runs already
// running finish normally. A run another transaction holds (a dispatcher claiming it) is left to that claim.
import type { Queryable } from "../../db/pool";
import { recordRunEvents } from "../record-run-event";

/** Cancels the schedule's planned and queued runs; returns their ids. */
export async function endUnstartedRuns(tx: Queryable, scheduleId: string, message: string): Promise<string[]> {
  const { rows } = await tx.query<{ id: string }>(
    `WITH target AS (SELECT id FROM runs WHERE schedule_id = $1 AND state IN ('planned', 'queued') FOR UPDATE SKIP LOCKED)
     UPDATE runs r SET state = 'cancelled', wait_reason = NULL, updated_at = clock_timestamp()
       FROM target WHERE r.id = target.id
     RETURNING r.id`,
    [scheduleId],
  );
  await recordRunEvents(
    tx,
    rows.map((r) => ({ runId: r.id, type: "cancelled" as const, message })),
  );
  return rows.map((r) => r.id);
}
