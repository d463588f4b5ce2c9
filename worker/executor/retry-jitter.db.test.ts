// A retry is a pg-boss job whose start carries the full jitter: its start_after is the instant retry-backoff.ts's
// jittered delay gives, pg-boss does not hand it out before that instant (database clock), and runs failing at the
// same moment are retried at different instants, each inside the documented range [0, min(cap, base · 2^(n−1))].
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import type { PgBoss } from "pg-boss";
import { useTestDatabase, testPool } from "../../test/db";
import { startWorker, type TestWorker } from "../../test/worker-process";
import { waitFor } from "../../test/wait-for";
import { createRuns, insertSchedule, runEvents, startTestBoss, waitForWorkerReady } from "../../test/run-fixtures";
import { jobIdFor } from "../../core/queue/job-id";
import { retryCeilingMs } from "../../core/runs/finish/retry-backoff";

const db = useTestDatabase("retry_jitter");
const RUNS = 8;
const POLICY = { baseSeconds: 3, maxSeconds: 3 };
let pool: pg.Pool;
let boss: PgBoss;
let worker: TestWorker;

beforeAll(async () => {
  pool = testPool(db.url, 4);
  boss = await startTestBoss(db.url);
  worker = startWorker(db.url, { VIGIL_WORKER_CONCURRENCY: String(RUNS) });
  await waitForWorkerReady(worker);
}, 180_000);

afterAll(async () => {
  await worker?.stop();
  await boss?.stop({ graceful: false, close: true });
  await pool?.end();
});

describe("retry jitter", () => {
  it("a retry's job starts after its own jittered instant, never before it, and the instants of runs failing together differ", async () => {
    const s = await insertSchedule(pool, {
      handler: "demo.flaky",
      payload: { p: 1, ms: 0 },
      retryMaxAttempts: 2,
      retryBaseSeconds: POLICY.baseSeconds,
      retryMaxSeconds: POLICY.maxSeconds,
    });
    const ids = await createRuns(pool, boss, s, RUNS, { inMs: 500 });
    await waitFor(
      "every run to fail its retry",
      async () =>
        (await pool.query(`SELECT count(*)::int AS n FROM runs WHERE id = ANY($1::uuid[]) AND state = 'failed'`, [ids])).rows[0].n === RUNS,
      { timeoutMs: 120_000, intervalMs: 200 },
    );

    const ceilingMs = retryCeilingMs(1, POLICY);
    expect(ceilingMs).toBe(3000);
    const delays: number[] = [];
    for (const id of ids) {
      const retry = (await runEvents(pool, id)).find((e) => e.type === "retry_scheduled" && e.attempt === 1);
      expect(retry, `run ${id} scheduled a retry`).toBeDefined();
      const delayMs = retry!.data.delayMs as number;
      const nextAttemptAt = new Date(retry!.data.nextAttemptAt as string);
      delays.push(delayMs);
      expect(delayMs, "the jittered delay is within [0, ceiling]").toBeGreaterThanOrEqual(0);
      expect(delayMs).toBeLessThanOrEqual(ceilingMs);

      const { rows: attempts } = await pool.query<{ number: number; started_at: Date; finished_at: Date }>(
        `SELECT number, started_at, finished_at FROM attempts WHERE run_id = $1 ORDER BY number`,
        [id],
      );
      expect(attempts.map((a) => a.number)).toEqual([1, 2]);
      // The instant is the delay counted on the database clock from the first attempt's failure.
      const from = nextAttemptAt.getTime() - delayMs;
      expect(from).toBeGreaterThanOrEqual(attempts[0]!.started_at.getTime() - 1); // started_at is rounded to the ms
      expect(from).toBeLessThanOrEqual(retry!.at.getTime() + 1);

      // The retry's pg-boss job carries the instant, and neither pg-boss nor the run started it earlier.
      const { rows: jobs } = await pool.query<{ start_after: Date; started_on: Date; state: string }>(
        `SELECT start_after, started_on, state FROM pgboss.job WHERE id = $1`,
        [jobIdFor(id, 2)],
      );
      expect(jobs, "the retry is a pg-boss job").toHaveLength(1);
      expect(jobs[0]!.start_after.getTime(), "the job's start_after is the jittered instant").toBe(nextAttemptAt.getTime());
      expect(jobs[0]!.started_on.getTime(), "pg-boss handed the job out before its instant").toBeGreaterThanOrEqual(
        nextAttemptAt.getTime(),
      );
      expect(attempts[1]!.started_at.getTime(), "the retry started before its instant").toBeGreaterThanOrEqual(nextAttemptAt.getTime());
    }
    // Jitter applied: runs that failed together are retried at different instants (two equal draws out of 3,000 ms
    // happen about once in a hundred runs of this test; three, practically never).
    expect(new Set(delays).size, `delays ${delays.join(", ")}`).toBeGreaterThanOrEqual(RUNS - 1);
  }, 180_000);
});
