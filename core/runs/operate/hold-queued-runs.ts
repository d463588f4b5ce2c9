// A pause holds the runs already queued for the paused schedules: they go back to planned (a backfill's keep their
// backfill wait) with a "paused" event, and the resume decides them by its misfire policy. A run another
// transaction holds (a dispatcher claiming it) is left to that claim.
import type { Queryable } from "../../db/pool";
import { recordRunEvents } from "../record-run-event";

/** Holds the queued scheduled and backfill runs of `scheduleIds`; returns each held run with its schedule. */
export async function holdQueuedRuns(
  tx: Queryable,
  scheduleIds: readonly string[],
  message: string,
): Promise<{ id: string; schedule_id: string }[]> {
  const { rows } = await tx.query<{ id: string; schedule_id: string }>(
    `WITH held AS (
       SELECT id FROM runs
        WHERE schedule_id = ANY($1::uuid[]) AND state = 'queued' AND kind IN ('scheduled', 'backfill')
          FOR UPDATE SKIP LOCKED
     )
     UPDATE runs r SET state = 'planned', updated_at = clock_timestamp(),
            wait_reason = CASE WHEN r.kind = 'backfill' THEN 'backfill' ELSE NULL END
       FROM held WHERE r.id = held.id
     RETURNING r.id, r.schedule_id`,
    [scheduleIds],
  );
  await recordRunEvents(
    tx,
    rows.map((r) => ({ runId: r.id, type: "paused" as const, message, data: { held: true } })),
  );
  return rows;
}
