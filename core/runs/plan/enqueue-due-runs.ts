// Enqueue (engine contract): a planned run whose due time is near gets its pg-boss job and becomes
// 'queued' in ONE transaction, the run rows locked FOR UPDATE SKIP LOCKED so concurrent planners split
// the work instead of doubling it; job ids are deterministic (run, attempt, wake), so even a repeated send
// is a no-op. sendRunJob NOTIFYs 'vigil_due' so dispatchers arm their timers for the due time.
import type pg from "pg";
import type { PgBoss } from "pg-boss";
import { withTransaction, type Queryable } from "../../db/pool";
import { DUE_CHANNEL, dueNotices, sendRunJobs } from "../../queue/send-run-job";
import { pausedSql } from "../paused";
import { startingDeadlinePassedSql } from "../starting-deadline";

/**
 * Jobs exist up to this long before their due time: much longer than a planner tick, so a run never waits for one,
 * and long enough that the runs of a bunched second (20,000 schedules at second 0 of a minute) are enqueued over
 * several ticks, most urgent first, a bounded amount per tick (see enqueueDueRuns), and all before they are due.
 */
export const ENQUEUE_AHEAD_MS = 30_000;

interface DueRow {
  id: string;
  /** Attempts made so far: 0, or more for a chained occurrence put back to wait by a re-run of its upstream. */
  attempt: number;
  handler: string;
  due_at: Date;
  timeout_seconds: number;
  grace_seconds: number;
  wakes: number;
  enqueued_at: Date | null;
  now: Date;
}

/**
 * Enqueues scheduled runs due within ENQUEUE_AHEAD_MS (not of paused or deleted schedules, and only once the
 * schedule's planning has caught up with now, so misfire decisions come first) and manual runs, soonest due first,
 * in batches (one transaction each: one locking SELECT, one job INSERT per handler, one UPDATE with the events and
 * wake-ups), at most maxBatches per call: a planner tick stays bounded however many runs share a second, and
 * the next tick goes on with the rest. Returns the number enqueued.
 */
export async function enqueueDueRuns(pool: pg.Pool, boss: PgBoss, opts: { batchSize?: number; maxBatches?: number } = {}): Promise<number> {
  const batchSize = opts.batchSize ?? 1000;
  let total = 0;
  for (let i = 0; i < (opts.maxBatches ?? 4); i++) {
    const n = await withTransaction(async (tx) => {
      const { rows } = await tx.query<DueRow>(
        `SELECT r.id, r.attempt, r.handler, r.due_at, r.timeout_seconds, r.grace_seconds, r.wakes, r.enqueued_at, clock_timestamp() AS now
           FROM runs r JOIN schedules s ON s.id = r.schedule_id
          WHERE r.state = 'planned' AND r.wait_reason IS NULL
            AND r.due_at <= clock_timestamp() + make_interval(secs => $1::float8 / 1000)
            AND s.deleted_at IS NULL
            AND (r.kind = 'manual'
                 OR (r.kind = 'scheduled' AND NOT ${pausedSql("s")} AND s.planned_through >= clock_timestamp()))
            AND NOT ${startingDeadlinePassedSql("r", "s")}
          ORDER BY r.due_at
          LIMIT $2
            FOR UPDATE OF r SKIP LOCKED
            FOR SHARE OF s SKIP LOCKED`,
        [ENQUEUE_AHEAD_MS, batchSize],
      );
      await enqueueLocked(tx, boss, rows, false);
      return rows.length;
    }, pool);
    total += n;
    if (n < batchSize) break;
  }
  return total;
}

/**
 * Runs waiting their turn (wait_reason 'catch_up' from a misfire policy or a resume, 'backfill' from a
 * backfill) are enqueued one at a time per schedule, due now, when no run of that schedule is active or about
 * to start: they neither overlap each other nor crowd out on-time fires. Their starting deadline counts from
 * that moment. Catch-up runs go before backfill runs, each in planned order.
 */
export async function enqueueCatchUpRuns(pool: pg.Pool, boss: PgBoss, opts: { limit?: number } = {}): Promise<number> {
  return withTransaction(async (tx) => {
    const { rows: next } = await tx.query<{ id: string }>(
      `SELECT DISTINCT ON (r.schedule_id) r.id
         FROM runs r JOIN schedules s ON s.id = r.schedule_id
        WHERE r.state = 'planned' AND r.wait_reason IN ('catch_up', 'backfill')
          AND s.deleted_at IS NULL AND NOT ${pausedSql("s")}
          AND NOT EXISTS (
                SELECT 1 FROM runs a
                 WHERE a.schedule_id = r.schedule_id
                   AND (a.state IN ('running', 'retrying')
                        OR (a.state = 'queued' AND a.due_at <= clock_timestamp() + interval '1 second')))
        ORDER BY r.schedule_id, (r.wait_reason = 'backfill'), r.planned_at, r.id
        LIMIT $1`,
      [opts.limit ?? 200],
    );
    if (next.length === 0) return 0;
    const { rows } = await tx.query<DueRow>(
      `SELECT r.id, r.attempt, r.handler, clock_timestamp() AS due_at, r.timeout_seconds, r.grace_seconds, r.wakes, r.enqueued_at,
              clock_timestamp() AS now
         FROM runs r JOIN schedules s ON s.id = r.schedule_id
        WHERE r.id = ANY($1::uuid[]) AND r.state = 'planned' AND r.wait_reason IN ('catch_up', 'backfill')
          FOR UPDATE OF r SKIP LOCKED
          FOR SHARE OF s SKIP LOCKED`,
      [next.map((r) => r.id)],
    );
    await enqueueLocked(tx, boss, rows, true);
    return rows.length;
  }, pool);
}

/**
 * Sends each locked run its job and marks it queued. `dueNow`: the run is due at the moment it is marked queued
 * (its fresh starting deadline counts from there, not from when the batch was selected); its job may start a
 * little before that, which only lets it start sooner.
 */
async function enqueueLocked(tx: Queryable, boss: PgBoss, rows: DueRow[], dueNow: boolean): Promise<void> {
  if (rows.length === 0) return;
  // A run enqueued before (then held by a pause or rescued after a misfire) may still have its old job,
  // already consumed or about to be: the next wake number gives the new job its own id.
  const wakes = rows.map((r) => (r.enqueued_at === null ? r.wakes : r.wakes + 1));
  const jobs = rows.map((r, i) => ({
    runId: r.id,
    handler: r.handler,
    attempt: r.attempt + 1,
    wake: wakes[i]!,
    dueAt: r.due_at,
    timeoutSeconds: r.timeout_seconds,
    graceSeconds: r.grace_seconds,
  }));
  await sendRunJobs(tx, boss, jobs, { notify: false });
  // The runs' state, their 'enqueued' events and the dispatchers' wake-up (delivered at commit) in one statement:
  // a trigger's run reaches a dispatcher a few round trips sooner, and a bunched second costs fewer of them.
  await tx.query(
    `WITH u AS (
       UPDATE runs r SET state = 'queued', wait_reason = NULL, enqueued_at = clock_timestamp(), updated_at = clock_timestamp(),
              wakes = u.wake, due_at = CASE WHEN $3 THEN clock_timestamp() ELSE r.due_at END
         FROM unnest($1::uuid[], $2::int[], $4::timestamptz[], $5::jsonb[]) AS u(id, wake, due_at, data)
        WHERE r.id = u.id
        RETURNING r.id, u.data
     ),
     e AS (INSERT INTO run_events (run_id, type, attempt, message, data) SELECT u.id, 'enqueued', 1, $6, u.data FROM u)
     SELECT pg_notify($7, n) FROM unnest($8::text[]) AS n`,
    [
      rows.map((r) => r.id),
      wakes,
      dueNow,
      rows.map((r) => r.due_at.toISOString()),
      rows.map((r, i) => JSON.stringify({ dueAt: r.due_at.toISOString(), wake: wakes[i] })),
      dueNow ? "enqueued to run now (catch-up or backfill, one at a time)" : "",
      DUE_CHANNEL,
      await dueNotices(tx, jobs),
    ],
  );
}
