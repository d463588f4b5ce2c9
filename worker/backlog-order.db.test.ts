// A backlog drains in due order across schedules. Runs of one handler share a pg-boss queue, and the planner sends
// their jobs schedule by schedule, minutes ahead: a worker that starts with a backlog (after a crash, after the fleet
// was down) must start the earliest due run first whichever schedule it belongs to — not one schedule's whole
// backlog before the next schedule's first run. Also prints how long the worker took from its start to its first run.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import type { PgBoss } from "pg-boss";
import { useTestDatabase, testPool } from "../test/db";
import { startWorker, type TestWorker } from "../test/worker-process";
import { waitFor } from "../test/wait-for";
import { insertSchedule, startTestBoss } from "../test/run-fixtures";
import { withTransaction } from "../core/db/pool";
import { sendRunJobs } from "../core/queue/send-run-job";

const db = useTestDatabase("backlog_order");
const SCHEDULES = 4;
const RUNS_EACH = 8;
let pool: pg.Pool;
let boss: PgBoss;
let worker: TestWorker | undefined;

beforeAll(async () => {
  pool = testPool(db.url);
  boss = await startTestBoss(db.url);
});

afterAll(async () => {
  await worker?.kill();
  await boss?.stop({ graceful: false, close: true });
  await pool?.end();
});

/**
 * Queues RUNS_EACH runs per schedule, due one second apart over the last minute (schedule i's run j due at
 * T0 + j s + i × 100 ms), and sends their jobs schedule by schedule in one transaction each, as the planner does:
 * by creation, the queue holds schedule 0's whole backlog first.
 */
async function queueBacklog(scheduleIds: string[]): Promise<void> {
  const { rows: t } = await pool.query<{ t0: Date }>(`SELECT date_trunc('second', clock_timestamp()) - interval '60 seconds' AS t0`);
  for (const [i, scheduleId] of scheduleIds.entries()) {
    await withTransaction(async (tx) => {
      const { rows } = await tx.query<{ id: string; handler: string; due_at: Date; timeout_seconds: number; grace_seconds: number }>(
        `WITH t AS (SELECT $4::timestamptz AS t0)
         INSERT INTO runs (schedule_id, kind, planned_at, due_at, idempotency_key, state, handler, payload, timeout_seconds,
                           grace_seconds, max_attempts, enqueued_at)
         SELECT s.id, 'scheduled', at, at, s.id || ':' || to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'queued',
                s.handler, s.payload, s.timeout_seconds, s.grace_seconds, s.retry_max_attempts, clock_timestamp()
           FROM schedules s, t, LATERAL (SELECT t.t0 + make_interval(secs => j + $2::int * 0.1) AS at FROM generate_series(0, $3::int - 1) j) g
          WHERE s.id = $1
         RETURNING id, handler, due_at, timeout_seconds, grace_seconds`,
        [scheduleId, i, RUNS_EACH, t[0]!.t0],
      );
      await sendRunJobs(
        tx,
        boss,
        rows.map((r) => ({
          runId: r.id,
          handler: r.handler,
          attempt: 1,
          wake: 0,
          dueAt: r.due_at,
          timeoutSeconds: r.timeout_seconds,
          graceSeconds: r.grace_seconds,
        })),
      );
    }, pool);
  }
}

describe("a worker starting with a backlog", () => {
  it("starts the due runs of every schedule in due order, not one schedule's backlog first", async () => {
    const scheduleIds: string[] = [];
    for (let i = 0; i < SCHEDULES; i++) scheduleIds.push(await insertSchedule(pool, { handler: "demo.noop", overlapPolicy: "allow" }));
    await queueBacklog(scheduleIds);

    const startedPerf = performance.now();
    // One slot: the order in which runs start is the order in which the dispatcher takes them.
    worker = startWorker(db.url, { VIGIL_WORKER_CONCURRENCY: "1" });
    await waitFor(
      "the first run to start",
      async () => (await pool.query(`SELECT 1 FROM runs WHERE started_at IS NOT NULL LIMIT 1`)).rowCount === 1,
      { timeoutMs: 90_000, intervalMs: 20 },
    );
    const firstRunMs = performance.now() - startedPerf;
    await waitFor(
      "every backlog run to finish",
      async () => {
        const { rows } = await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM runs WHERE state = 'succeeded'`);
        return rows[0]!.n === SCHEDULES * RUNS_EACH;
      },
      { timeoutMs: 90_000 },
    );
    const { rows } = await pool.query<{ schedule_id: string; due_at: Date }>(
      `SELECT schedule_id, due_at FROM runs ORDER BY started_at, id`,
    );
    const dueOrder = [...rows].sort((a, b) => a.due_at.getTime() - b.due_at.getTime());
    // The first SCHEDULES runs started are one of each schedule (the backlog's first second), and the whole start
    // order is the due order.
    expect(new Set(rows.slice(0, SCHEDULES).map((r) => r.schedule_id)).size).toBe(SCHEDULES);
    expect(rows.map((r) => r.due_at.toISOString())).toEqual(dueOrder.map((r) => r.due_at.toISOString()));
    process.stdout.write(`[backlog-order] worker start → first run ${Math.round(firstRunMs)} ms (process spawn included)\n`);
  });
});
