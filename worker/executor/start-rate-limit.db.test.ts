// The start-rate limit under load: three real worker processes race to start 400 due runs of one group
// limited to 5 starts per second, for a minute (more than the minute's 300 allowed starts, so the
// limit binds throughout). The proof is read from the attempts' recorded start times (database clock):
// no sliding window of one second ever holds more than 5 starts, and the limit is used, not starved.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import type { PgBoss } from "pg-boss";
import { useTestDatabase, testPool } from "../../test/db";
import { startWorker, type TestWorker } from "../../test/worker-process";
import { waitFor } from "../../test/wait-for";
import { createRuns, insertSchedule, startTestBoss, waitForWorkerReady } from "../../test/run-fixtures";

const db = useTestDatabase("exec_start_rate");
let pool: pg.Pool;
let boss: PgBoss;
const workers: TestWorker[] = [];

const GROUP = "bank-api";
const MAX_STARTS = 5;
const PER_SECONDS = 1;
const MINUTE_S = 60;
const BACKLOG = 200; // due at once
const LATER = 200; // due 25 s later, while the backlog still waits: new arrivals compete with waiting runs

beforeAll(async () => {
  pool = testPool(db.url, 4);
  boss = await startTestBoss(db.url);
  for (let i = 0; i < 3; i++) workers.push(startWorker(db.url, { VIGIL_WORKER_CONCURRENCY: "16", VIGIL_HEARTBEAT_MS: "500" }));
  await Promise.all(workers.map((w) => waitForWorkerReady(w)));
}, 180_000);

afterAll(async () => {
  await Promise.all(workers.map((w) => w.stop()));
  await boss?.stop({ graceful: false, close: true });
  await pool?.end();
});

describe("start-rate limit across three workers", () => {
  it("over a minute of more due runs than the limit allows, no 1 s window holds more than 5 starts, and the rate is used", async () => {
    const s = await insertSchedule(pool, { handler: "demo.noop", overlapPolicy: "allow", concurrencyGroup: GROUP });
    await pool.query(`UPDATE concurrency_groups SET max_running = 1000, max_starts = $2, per_seconds = $3 WHERE name = $1`, [
      GROUP,
      MAX_STARTS,
      PER_SECONDS,
    ]);
    await createRuns(pool, boss, s, BACKLOG);
    await createRuns(pool, boss, s, LATER, { inMs: 25_000 });

    await waitFor(
      "runs held back by the rate limit",
      async () =>
        (await pool.query(`SELECT count(*)::int AS n FROM runs WHERE schedule_id = $1 AND wait_reason = 'rate_limit'`, [s])).rows[0].n > 0,
      { timeoutMs: 20_000 },
    );
    // A minute of starts, on the database clock, from the first one.
    await waitFor(
      "a minute of starts",
      async () =>
        (
          await pool.query(
            `SELECT clock_timestamp() > min(a.started_at) + make_interval(secs => $2) AS done
               FROM attempts a JOIN runs r ON r.id = a.run_id WHERE r.schedule_id = $1`,
            [s, MINUTE_S + 0.5],
          )
        ).rows[0].done === true,
      { timeoutMs: 120_000, intervalMs: 250 },
    );
    // Stop the load: what has not started by now is left out of the proof.
    await pool.query(`UPDATE concurrency_groups SET max_starts = 1, per_seconds = 86400 WHERE name = $1`, [GROUP]);

    // Nothing held back was failed, skipped or missed: every run started (and succeeded) or is still waiting its turn.
    const { rows: states } = await pool.query(
      `SELECT count(*) FILTER (WHERE state NOT IN ('queued', 'running', 'succeeded'))::int AS other,
              count(*) FILTER (WHERE state = 'queued' AND wait_reason = 'rate_limit')::int AS waiting
         FROM runs WHERE schedule_id = $1`,
      [s],
    );
    expect(states[0].other).toBe(0);
    expect(states[0].waiting).toBeGreaterThan(0);

    // Every window (t − 1 s, t] ending at a recorded start, counted by the database on the stored start times.
    const { rows: w } = await pool.query(
      `WITH st AS (SELECT a.started_at AS t, a.worker_id FROM attempts a JOIN runs r ON r.id = a.run_id WHERE r.schedule_id = $1),
            first AS (SELECT min(t) AS t0 FROM st)
       SELECT (SELECT count(*)::int FROM st, first WHERE st.t < first.t0 + make_interval(secs => $3)) AS in_minute,
              (SELECT count(*)::int FROM st) AS starts,
              (SELECT count(DISTINCT worker_id)::int FROM st) AS workers,
              (SELECT max((SELECT count(*) FROM st b WHERE b.t > a.t - make_interval(secs => $2) AND b.t <= a.t))::int FROM st a) AS max_in_window`,
      [s, PER_SECONDS, MINUTE_S],
    );
    const r = w[0];
    const limitInMinute = (MINUTE_S / PER_SECONDS) * MAX_STARTS;
    console.log(
      `[start-rate] ${r.in_minute} starts in the first ${MINUTE_S} s (the limit allows ${limitInMinute}: ${Math.round((100 * r.in_minute) / limitInMinute)} %), ` +
        `${r.starts} in all, by ${r.workers} workers; busiest ${PER_SECONDS} s window: ${r.max_in_window} (limit ${MAX_STARTS})`,
    );
    expect(r.max_in_window).toBeLessThanOrEqual(MAX_STARTS);
    expect(r.max_in_window).toBe(MAX_STARTS); // the limit was reached, so the check above was a real one
    expect(r.workers).toBe(3);
    expect(r.in_minute).toBeLessThanOrEqual(limitInMinute);
    // Not starved: on an idle machine this is ~95 %, and 58 % was seen with three workers at load 8 on two CPUs. The
    // floor catches a limiter that holds runs back far below its rate (a waiter re-waiting a whole window each time
    // starts about one run per window: 20 %); how close to the rate it gets is the benchmarks' business.
    expect(r.in_minute).toBeGreaterThanOrEqual(0.4 * limitInMinute);
  }, 200_000);
});
