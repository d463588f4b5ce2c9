// Takes back run jobs that no dispatcher has taken yet, through pg-boss (boss.cancel on the caller's transaction), so a
// caller can send their runs fresh jobs elsewhere in the same transaction: a team's pool change moves its queued runs
// to the new pool's queues this way (core/runs/operate/move-team-queued-runs.ts). pg-boss has no call that moves a job
// to another queue, and pg-boss stays the one writer of its jobs' state: Vigil cancels, pg-boss moves the state.
//
// The race with the dispatchers: pg-boss's cancel ends any job not yet completed, an active one too, so the jobs are
// first locked here while still waiting (state 'created' or 'retry'), FOR UPDATE SKIP LOCKED as pg-boss's fetch and
// the take-by-key claim (worker/claim-notified-job.ts) lock them. Of this and a dispatcher fetching the job, exactly
// one gets it: a job a dispatcher is fetching (locked) or has taken (active) is skipped and left to it, and its run
// starts where it was queued; a job locked here is skipped by every fetch, and once cancelled no fetch (state before
// 'active') takes it again. A read with a row lock: nothing here writes pgboss.job.
import type { PgBoss } from "pg-boss";
import type { Queryable } from "../db/pool";
import { BOSS_SCHEMA } from "./boss-job-moves";

export interface QueuedRunJob {
  /** The job's queue (boss.ts runQueueFor). */
  queue: string;
  id: string;
}

/** A job cancelled here, with what its replacement keeps: its due time and priority. */
export interface CancelledRunJob extends QueuedRunJob {
  startAfter: Date;
  priority: number;
}

/**
 * Cancels those of `jobs` that are still waiting to be taken, on `tx` (one cancel per queue), and returns them. A job
 * already taken, being taken, finished or gone is left alone and not returned. Lock order: the caller holds the runs'
 * rows; the jobs' rows come after them (as mark-missed-runs.ts's cancel takes them) and are never waited for.
 */
export async function cancelQueuedRunJobs(tx: Queryable, boss: PgBoss, jobs: readonly QueuedRunJob[]): Promise<CancelledRunJob[]> {
  if (jobs.length === 0) return [];
  const { rows } = await tx.query<{ name: string; id: string; start_after: Date; priority: number }>(
    `SELECT j.name, j.id, j.start_after, j.priority FROM ${BOSS_SCHEMA}.job j
      WHERE j.name = ANY($1::text[]) AND j.id = ANY($2::uuid[]) AND j.state < 'active'
        FOR UPDATE OF j SKIP LOCKED`,
    [[...new Set(jobs.map((j) => j.queue))], jobs.map((j) => j.id)],
  );
  const byQueue = new Map<string, typeof rows>();
  for (const r of rows) byQueue.set(r.name, [...(byQueue.get(r.name) ?? []), r]);
  const cancelled: CancelledRunJob[] = [];
  for (const [queue, locked] of byQueue) {
    const res = (await boss.cancel(
      queue,
      locked.map((r) => r.id),
      { db: { executeSql: async (text: string, values?: unknown[]) => tx.query(text, values as unknown[]) } },
    )) as { affected?: number };
    // The rows are locked by this transaction while waiting: pg-boss cancels every one of them.
    if (res.affected !== locked.length) {
      throw new Error(`pg-boss cancelled ${res.affected} of ${locked.length} locked jobs of queue ${queue}`);
    }
    cancelled.push(...locked.map((r) => ({ queue, id: r.id, startAfter: r.start_after, priority: r.priority })));
  }
  return cancelled;
}
