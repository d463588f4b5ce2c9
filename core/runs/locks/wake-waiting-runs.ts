// Slot release: whoever frees a slot (a finish, a cancel, the reaper) wakes the oldest runs waiting
// for it in the same transaction, by clearing their wait and sending a fresh job (a new wake
// number, so a new job id). The woken run's claim checks again; if someone else took the slot it
// simply waits again, so waking one too many is harmless and waking none is caught by the reaper.
import type { PgBoss } from "pg-boss";
import type { Queryable } from "../../db/pool";
import { sendRunJob } from "../../queue/send-run-job";
import { runPoolSql } from "../../queue/worker-pool";
import { recordRunEvents } from "../record-run-event";
import { type LockedGroup } from "./lock-run-scope";
import { wakeJob, wokenRunColumns, type WokenRun } from "./wake-job";

/** Call with the schedule row (and group row, if any) locked. Returns the ids of woken runs. */
export async function wakeWaitingRuns(
  tx: Queryable,
  boss: PgBoss,
  scope: { scheduleId: string; group: LockedGroup | null; overlap?: boolean },
): Promise<string[]> {
  const ids: string[] = [];
  if (scope.group) {
    const { rows } = await tx.query<{ id: string }>(
      `SELECT r.id FROM runs r
        WHERE r.concurrency_group = $1 AND r.state = 'queued' AND r.wait_reason = 'concurrency'
        ORDER BY r.due_at, r.id
        LIMIT greatest($2::int - (SELECT count(*) FROM runs x WHERE x.concurrency_group = $1 AND x.state = 'running'), 0)
        FOR NO KEY UPDATE OF r SKIP LOCKED`,
      [scope.group.name, scope.group.maxRunning],
    );
    ids.push(...rows.map((r) => r.id));
  }
  // Under 'allow' nobody waits for overlap (barring a policy edit, which the reaper covers).
  const { rows: overlap } =
    scope.overlap === false
      ? { rows: [] }
      : await tx.query<{ id: string }>(
          `SELECT r.id FROM runs r
      WHERE r.schedule_id = $1 AND r.state = 'queued' AND r.wait_reason = 'overlap'
        AND NOT EXISTS (SELECT 1 FROM runs a WHERE a.schedule_id = $1 AND a.state IN ('running', 'retrying'))
      ORDER BY r.due_at, r.id
      LIMIT 1
      FOR NO KEY UPDATE OF r SKIP LOCKED`,
          [scope.scheduleId],
        );
  for (const r of overlap) if (!ids.includes(r.id)) ids.push(r.id);
  if (ids.length > 0) await wakeRuns(tx, boss, ids);
  return ids;
}

/** Clears the wait of these (locked) runs and sends each a fresh job due now. */
export async function wakeRuns(tx: Queryable, boss: PgBoss, runIds: string[], why = "a slot was freed"): Promise<void> {
  const { rows } = await tx.query<WokenRun & { now: Date; pool: string | null }>(
    `UPDATE runs SET wait_reason = NULL, wakes = wakes + 1, updated_at = clock_timestamp()
      WHERE id = ANY($1::uuid[])
      RETURNING ${wokenRunColumns()}, clock_timestamp() AS now,
                ${runPoolSql("runs.schedule_id")} AS pool`,
    [runIds],
  );
  for (const r of rows) {
    await sendRunJob(tx, boss, wakeJob(r, r.now, { pool: r.pool }));
  }
  await recordRunEvents(
    tx,
    rows.map((r) => ({ runId: r.id, type: "woken" as const, attempt: r.attempt + 1, message: why, data: { wake: r.wakes } })),
  );
}
