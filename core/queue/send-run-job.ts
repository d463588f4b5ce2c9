// Puts the pg-boss job that will start one attempt of a run, on the caller's transaction, so the
// run's state change and its job commit or roll back together. Then wakes dispatchers.
import type { PgBoss } from "pg-boss";
import type { Queryable } from "../db/pool";
import { jobIdFor } from "./job-id";
import { ensureRunQueues, runQueueFor } from "./boss";
import { findRunPools, runQueueKey } from "./worker-pool";

export const DUE_CHANNEL = "vigil_due";

/**
 * NOTIFY 'vigil_due' payload: "<due epoch ms> <queue key>[ <job id>]", the queue key being the handler, with
 * "/<pool>" for a pool's run (worker-pool.ts); a dispatcher serves the keys of its handlers in its pool. A dispatcher arms a timer for the due time and,
 * when it fires, fetches from that handler's queue (if it serves it). A payload without a handler (an older
 * sender) means "some queue": the dispatcher then fetches from all of its queues. A job id (a manual trigger's
 * single job, core/runs/plan/insert-triggered-run.ts) lets a dispatcher take that job by primary key and claim its
 * run in one statement (worker/claim-notified-job.ts); a dispatcher that ignores it fetches as usual.
 */
export function dueNotice(dueAt: Date, queueKey: string): string {
  return `${dueAt.getTime()} ${queueKey}`;
}

export function parseDueNotice(payload: string): { dueMs: number; handler: string | null; jobId: string | null } {
  const [ms, handler, jobId] = payload.split(" ");
  return { dueMs: Number(ms), handler: handler || null, jobId: handler && jobId && UUID.test(jobId) ? jobId : null };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * pg-boss job expiration for an attempt: a backstop well past the run's own timeout and grace (the run's copy of
 * its schedule's settings). Only runJobOptions uses it: every path that sends a run job goes through there.
 */
function jobExpireSeconds(run: { timeoutSeconds: number; graceSeconds: number }): number {
  return run.timeoutSeconds + run.graceSeconds + 60;
}

/**
 * pg-boss takes a queue's due jobs by priority (descending), then by creation time. Run jobs of one handler share a
 * queue across schedules and the planner creates them schedule by schedule, minutes ahead: by creation alone, a
 * backlog (a worker restarting after a crash, a fleet that was down) drains one schedule's runs before the next
 * schedule's. So a run job's priority is its due second, negated: among due jobs the earliest due goes first,
 * whichever schedule it belongs to. Seconds since 2026-01-01 keep the value inside PostgreSQL's integer for 68
 * years either way.
 */
const PRIORITY_EPOCH_S = 1_767_225_600; // 2026-01-01T00:00:00Z
const INT_MAX = 2_147_483_647;

export function duePriority(dueAt: Date): number {
  const s = Math.floor(dueAt.getTime() / 1000) - PRIORITY_EPOCH_S;
  return Math.max(-INT_MAX, Math.min(INT_MAX, -s));
}

/**
 * Runs an operator starts by hand (trigger now, re-run) are due the moment they are asked for and go ahead of any
 * backlog: above every due-order priority from 2026 on (duePriority is negative from then).
 */
export const OPERATOR_PRIORITY = 1;

export interface RunJobData {
  runId: string;
  attempt: number; // the attempt number this job starts (1 = first)
}

/** A run job's data, as both sendRunJob and the planner's batch form (sendRunJobs) write it. */
export function runJobData(job: RunJobData): RunJobData {
  return { runId: job.runId, attempt: job.attempt };
}

/**
 * One attempt's job: its run and attempt, its queue's handler, when it is due, and the run's timeout and grace
 * (its expiry follows from them). `wake` numbers a re-sent job of the same attempt (jobIdFor); `priority` defaults
 * to the due order (duePriority).
 */
export type RunJob = RunJobData & {
  handler: string;
  dueAt: Date;
  timeoutSeconds: number;
  graceSeconds: number;
  wake?: number;
  priority?: number;
  /**
   * The run's pool (worker-pool.ts runPoolSql) when the caller read it with the run in its own statement; absent, the
   * send looks it up (one statement more).
   */
  pool?: string | null;
};

/**
 * The pg-boss options of a run job, the one place that decides them for every sender (planner, trigger, retry,
 * re-run, wake, rate-limit hold-back): its id, data, start, priority, expiry, and no pg-boss retry (a retry is a new
 * attempt with its own job, decided by the run's own rules). `dueAt: null`: due at the database's clock when the job
 * is inserted (pg-boss's default start), for a job inserted by the same statement that creates its run; its
 * priority is then the caller's.
 */
export function runJobOptions(job: Omit<RunJob, "dueAt"> & ({ dueAt: Date } | { dueAt: null; priority: number })): {
  id: string;
  data: RunJobData;
  startAfter?: Date;
  priority: number;
  expireInSeconds: number;
  retryLimit: number;
} {
  return {
    id: jobIdFor(job.runId, job.attempt, job.wake ?? 0),
    data: runJobData(job),
    ...(job.dueAt ? { startAfter: job.dueAt } : {}),
    priority: job.priority ?? duePriority(job.dueAt!),
    expireInSeconds: jobExpireSeconds(job),
    retryLimit: 0,
  };
}

export async function sendRunJob(tx: Queryable, boss: PgBoss, job: RunJob): Promise<string | null> {
  const { data, ...options } = runJobOptions(job);
  // The run's team's pool, where the job is sent (worker-pool.ts).
  const pool = job.pool !== undefined ? job.pool : (await findRunPools(tx, [job.runId])).get(job.runId);
  const key = runQueueKey(job.handler, pool);
  await ensureRunQueues(boss, [key]);
  const sent = await boss.send(runQueueFor(key), data, {
    ...options,
    db: { executeSql: async (text: string, values?: unknown[]) => tx.query(text, values as unknown[]) },
  });
  // Delivered at commit: dispatchers re-arm their timers for this due time.
  await tx.query("SELECT pg_notify($1, $2)", [DUE_CHANNEL, dueNotice(job.dueAt, key)]);
  return sent;
}

/**
 * The batch form of sendRunJob for the planner, which enqueues hundreds of runs per tick, and
 * the claim's start-rate limit (its held-back runs' wake jobs): the same job options (runJobOptions), in one INSERT (pg-boss insert ends in
 * ON CONFLICT DO NOTHING, so a repeated job is a no-op) on the caller's transaction, and one NOTIFY 'vigil_due'
 * per due time so dispatchers arm their timers, delivered at commit (unless `notify: false`: the caller sends them).
 */
export async function sendRunJobs(
  tx: Queryable,
  boss: PgBoss,
  jobs: (RunJob & { wake: number })[],
  opts: { notify?: boolean } = {},
): Promise<void> {
  if (jobs.length === 0) return;
  const byKey = new Map<string, typeof jobs>();
  const keyed = await withQueueKeys(tx, jobs);
  for (const j of keyed) {
    const batch = byKey.get(j.queueKey);
    if (batch) batch.push(j);
    else byKey.set(j.queueKey, [j]);
  }
  await ensureRunQueues(boss, byKey.keys());
  for (const [key, batch] of byKey) {
    await boss.insert(
      runQueueFor(key),
      batch.map((j) => runJobOptions(j)),
      { db: { executeSql: async (text: string, values?: unknown[]) => tx.query(text, values as unknown[]) } },
    );
  }
  if (opts.notify === false) return;
  // The keys read above: one pool lookup per batch.
  const notices = [...new Set(keyed.map((j) => dueNotice(j.dueAt, j.queueKey)))];
  await tx.query(`SELECT pg_notify($1, t) FROM unnest($2::text[]) AS t`, [DUE_CHANNEL, notices]);
}

/**
 * The jobs with the queue key each goes to: its handler, in its run's team's pool — the `pool` a caller read with the
 * run (as sendRunJob takes it), else one read for all the others.
 */
async function withQueueKeys<J extends { runId: string; handler: string; pool?: string | null }>(
  tx: Queryable,
  jobs: J[],
): Promise<(J & { queueKey: string })[]> {
  const pools = await findRunPools(
    tx,
    jobs.filter((j) => j.pool === undefined).map((j) => j.runId),
  );
  return jobs.map((j) => ({ ...j, queueKey: runQueueKey(j.handler, j.pool !== undefined ? j.pool : pools.get(j.runId)) }));
}

/** One NOTIFY 'vigil_due' payload per distinct (due time, queue key) of these jobs. */
export async function dueNotices(tx: Queryable, jobs: { runId: string; dueAt: Date; handler: string }[]): Promise<string[]> {
  return [...new Set((await withQueueKeys(tx, jobs)).map((j) => dueNotice(j.dueAt, j.queueKey)))];
}
