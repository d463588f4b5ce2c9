// pg-boss's own retention: completed (and failed/cancelled) jobs of Vigil's run queues are deleted by pg-boss's
// maintenance deleteAfterSeconds after they end. New queues get it at creation (core/queue/boss.ts); queues made
// under another setting are updated here, so a changed VIGIL_RETENTION_JOBS_DAYS applies to every queue.
import type { PgBoss } from "pg-boss";
import { RUN_QUEUE_PREFIX, LEGACY_RUN_QUEUE } from "../queue/boss";

export async function applyJobRetention(boss: PgBoss, jobsDays: number): Promise<number> {
  const deleteAfterSeconds = jobsDays * 24 * 3600;
  let updated = 0;
  for (const q of await boss.getQueues()) {
    if (!(q.name.startsWith(RUN_QUEUE_PREFIX) || q.name === LEGACY_RUN_QUEUE)) continue;
    if (q.deleteAfterSeconds === deleteAfterSeconds) continue;
    await boss.updateQueue(q.name, { deleteAfterSeconds });
    updated++;
  }
  return updated;
}
