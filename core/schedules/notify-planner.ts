// Wakes every worker's planner: sent inside the transaction that changed a schedule (create, edit, resume,
// trigger, backfill), so planners hear it at commit and plan or enqueue at once instead of at the next tick.
import type { Queryable } from "../db/pool";

export const SCHEDULES_CHANNEL = "vigil_schedules";

export async function notifyPlanner(tx: Queryable, scheduleId: string): Promise<void> {
  await tx.query("SELECT pg_notify($1, $2)", [SCHEDULES_CHANNEL, scheduleId]);
}
