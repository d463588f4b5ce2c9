// The reaper's second duty: runs that should be moving but have no job that will move them.
//  - queued (not waiting) or retrying past their due time whose current job is gone, finished, or
//    held 'active' long after a fetch (the fetching worker died before its claim committed);
//  - waiting for a slot (overlap or concurrency group) while that slot is free and no wake job is
//    pending (a wake lost with a crash, or a slot freed by a process without a queue client).
// Each gets a fresh job (wake + 1). Re-sending is always safe: the claim runs at most one handler.
import type pg from "pg";
import type { PgBoss } from "pg-boss";
import { withTransaction } from "../../db/pool";
import { runQueueFor } from "../../queue/boss";
import { findRunPools, runQueueKey } from "../../queue/worker-pool";
import { jobIdFor } from "../../queue/job-id";
import { lockRunScope } from "../locks/lock-run-scope";
import { wakeRuns } from "../locks/wake-waiting-runs";

interface Candidate {
  id: string;
  handler: string;
  state: string;
  attempt: number;
  wakes: number;
  wait_reason: string | null;
}

export interface StalledRunOptions {
  /** How long past due a run may sit with no live job before it is re-sent. */
  overdueMs: number;
  /** How long a fetched ('active') job may stay unclaimed. */
  unclaimedMs: number;
  limit?: number;
}

export async function rekickStalledRuns(pool: pg.Pool, boss: PgBoss, opts: StalledRunOptions): Promise<string[]> {
  const limit = opts.limit ?? 100;
  const { rows: candidates } = await pool.query<Candidate>(
    `(SELECT id, handler, state, attempt, wakes, wait_reason FROM runs
       WHERE state = 'queued' AND wait_reason IS NULL AND due_at < clock_timestamp() - make_interval(secs => $1::float8 / 1000.0)
       ORDER BY due_at LIMIT $2)
     UNION ALL
     (SELECT id, handler, state, attempt, wakes, wait_reason FROM runs
       WHERE state = 'retrying' AND next_attempt_at < clock_timestamp() - make_interval(secs => $1::float8 / 1000.0)
       ORDER BY next_attempt_at LIMIT $2)
     UNION ALL
     (SELECT r.id, r.handler, r.state, r.attempt, r.wakes, r.wait_reason FROM runs r
       WHERE r.state = 'queued' AND r.wait_reason IS NOT NULL
         AND r.updated_at < clock_timestamp() - make_interval(secs => $1::float8 / 1000.0)
         AND CASE r.wait_reason
               WHEN 'overlap' THEN NOT EXISTS (SELECT 1 FROM runs a WHERE a.schedule_id = r.schedule_id AND a.state IN ('running', 'retrying'))
               WHEN 'concurrency' THEN coalesce((SELECT g.max_running FROM concurrency_groups g WHERE g.name = r.concurrency_group), 2147483647)
                                       > (SELECT count(*) FROM runs x WHERE x.concurrency_group = r.concurrency_group AND x.state = 'running')
               ELSE true END
       ORDER BY r.due_at LIMIT $2)`,
    [opts.overdueMs, limit],
  );
  if (candidates.length === 0) return [];

  const expected = new Map(candidates.map((c) => [jobIdFor(c.id, c.attempt + 1, c.wakes), c]));
  const pools = await findRunPools(
    pool,
    candidates.map((c) => c.id),
  );
  const { rows: jobs } = await pool.query<{ id: string; live: boolean }>(
    `SELECT id::text, (state IN ('created', 'retry') OR (state = 'active' AND started_on > now() - make_interval(secs => $3::float8 / 1000.0))) AS live
       FROM pgboss.job WHERE name = ANY($1::text[]) AND id = ANY($2::uuid[])`,
    [[...new Set(candidates.map((c) => runQueueFor(runQueueKey(c.handler, pools.get(c.id)))))], [...expected.keys()], opts.unclaimedMs],
  );
  const live = new Set(jobs.filter((j) => j.live).map((j) => j.id));
  const stalled = [...expected.entries()].filter(([jobId]) => !live.has(jobId)).map(([, c]) => c);

  const kicked: string[] = [];
  for (const c of stalled) {
    const done = await withTransaction(async (tx) => {
      const scope = await lockRunScope(tx, c.id, { skipLocked: true });
      const r = scope?.run;
      // Re-check under the lock: a claim or finish may have moved it since the scan.
      if (!r || r.state !== c.state || r.attempt !== c.attempt || r.wakes !== c.wakes || r.waitReason !== c.wait_reason) return false;
      await wakeRuns(
        tx,
        boss,
        [c.id],
        c.wait_reason ? `its ${c.wait_reason} slot is free and no wake-up was pending` : "re-sent: its job was lost before a claim",
      );
      return true;
    }, pool);
    if (done) kicked.push(c.id);
  }
  return kicked;
}
