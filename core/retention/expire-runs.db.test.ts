// The runs step against a concurrent re-run: a run re-run (back to queued) while the retention DELETE has already
// chosen it must be kept, not deleted with its batch.
import { afterAll, beforeAll, expect, test } from "vitest";
import { testPool, useTestDatabase } from "../../test/db";
import { fillHistoryDay, insertHistorySchedules } from "../../test/history-fixtures";
import { ensurePartitionDays } from "./ensure-partitions";
import { expireRuns } from "./expire-runs";

const db = useTestDatabase("expire-runs");
let pool: ReturnType<typeof testPool>;

beforeAll(async () => {
  pool = testPool(db.url);
});
afterAll(async () => {
  await pool.end();
});

test("a run re-run while the DELETE waits for its row is kept; the rest of the batch goes", async () => {
  const day = (await pool.query(`SELECT to_char(current_date - 3, 'YYYY-MM-DD') AS d`)).rows[0].d as string;
  for (const t of ["run_events", "run_logs"] as const) await ensurePartitionDays(pool, t, [day]);
  const [schedule] = await insertHistorySchedules(pool, 1);
  expect(await fillHistoryDay(pool, { day, scheduleIds: [schedule!], everySeconds: 3600, partitioned: true })).toBe(24);
  const rerun = (await pool.query(`SELECT id FROM runs WHERE state = 'succeeded' ORDER BY planned_at LIMIT 1`)).rows[0].id as string;

  // An operator's re-run of that old run, not committed yet when retention chooses its batch.
  const operator = await pool.connect();
  const retention = await pool.connect();
  try {
    await operator.query("BEGIN");
    await operator.query(`UPDATE runs SET state = 'queued', finished_at = NULL, attempt = attempt + 1 WHERE id = $1`, [rerun]);
    const pid = (await retention.query(`SELECT pg_backend_pid() AS p`)).rows[0].p;
    const today = (await pool.query(`SELECT to_char(current_date, 'YYYY-MM-DD') AS d`)).rows[0].d as string;
    const expiring = expireRuns(retention, { defaultDays: 1, batchSize: 5000, summarizedBefore: today });
    // The DELETE has its batch and waits for the re-run's row lock.
    for (const deadline = Date.now() + 30_000; ;) {
      const { rows } = await pool.query(`SELECT wait_event_type FROM pg_stat_activity WHERE pid = $1`, [pid]);
      if (rows[0]?.wait_event_type === "Lock") break;
      if (Date.now() > deadline) throw new Error("the retention DELETE never waited for the re-run's row");
      await new Promise((r) => setTimeout(r, 50));
    }
    await operator.query("COMMIT");
    const result = await expiring;
    expect(result.runs).toBe(23);
  } finally {
    await operator.query("ROLLBACK").catch(() => undefined);
    operator.release();
    retention.release();
  }
  const left = await pool.query(`SELECT id, state FROM runs`);
  expect(left.rows).toEqual([{ id: rerun, state: "queued" }]);
});

test("small batches across schedules delete every expired run, each schedule's once", async () => {
  const day = (await pool.query(`SELECT to_char(current_date - 4, 'YYYY-MM-DD') AS d`)).rows[0].d as string;
  for (const t of ["run_events", "run_logs"] as const) await ensurePartitionDays(pool, t, [day]);
  const schedules = await insertHistorySchedules(pool, 5, "batches");
  await pool.query(`UPDATE schedules SET retention_days = 10 WHERE id = $1`, [schedules[2]]);
  expect(await fillHistoryDay(pool, { day, scheduleIds: schedules, everySeconds: 3600, partitioned: true })).toBe(120);
  const today = (await pool.query(`SELECT to_char(current_date, 'YYYY-MM-DD') AS d`)).rows[0].d as string;
  const c = await pool.connect();
  try {
    // 7 runs a statement: batches end inside a schedule and span two.
    expect((await expireRuns(c, { defaultDays: 1, batchSize: 7, summarizedBefore: today })).runs).toBe(96);
  } finally {
    c.release();
  }
  const left = await pool.query(`SELECT schedule_id, count(*)::int AS n FROM runs WHERE schedule_id = ANY($1::uuid[]) GROUP BY 1`, [
    schedules,
  ]);
  expect(left.rows).toEqual([{ schedule_id: schedules[2], n: 24 }]);
});

test("a paced runs step pauses after each batch for its duty cycle, idle between statements, and the pass takes the pauses' sum longer", async () => {
  const day = (await pool.query(`SELECT to_char(current_date - 5, 'YYYY-MM-DD') AS d`)).rows[0].d as string;
  for (const t of ["run_events", "run_logs"] as const) await ensurePartitionDays(pool, t, [day]);
  const schedules = await insertHistorySchedules(pool, 4, "paced");
  expect(await fillHistoryDay(pool, { day, scheduleIds: schedules, everySeconds: 3600, partitioned: true })).toBe(96);
  const today = (await pool.query(`SELECT to_char(current_date, 'YYYY-MM-DD') AS d`)).rows[0].d as string;
  const retention = await pool.connect();
  const pid = (await retention.query(`SELECT pg_backend_pid() AS p`)).rows[0].p;
  // What another connection sees while the pass runs: the retention connection idle (between statements) with part
  // of the expired runs gone and part still there.
  const idleMidway: number[] = [];
  let done = false;
  const watching = (async () => {
    while (!done) {
      const { rows } = await pool.query(
        `SELECT (SELECT state FROM pg_stat_activity WHERE pid = $1) AS state,
                (SELECT count(*)::int FROM runs WHERE schedule_id = ANY($2::uuid[])) AS left`,
        [pid, schedules],
      );
      if (rows[0].state === "idle" && rows[0].left > 0 && rows[0].left < 96) idleMidway.push(rows[0].left);
      await new Promise((r) => setTimeout(r, 5));
    }
  })();
  try {
    const t0 = performance.now();
    // 7 runs a statement: 13 full batches and a short one; each full batch is followed by 20× its own time (≤ 100 ms).
    const result = await expireRuns(retention, { defaultDays: 1, batchSize: 7, summarizedBefore: today, pauseRatio: 20, maxPauseMs: 100 });
    const elapsed = performance.now() - t0;
    expect(result.runs).toBe(96);
    // 14 in planned order (13 full, 1 short), and the per-schedule phase for the earlier test's 10-day schedule.
    expect(result.batches).toBe(15);
    // A batch takes at least a millisecond (a DELETE with its triggers and a round trip), so each pause ≥ 20 ms.
    expect(result.pausedMs).toBeGreaterThanOrEqual(13 * 20);
    expect(elapsed).toBeGreaterThanOrEqual(result.pausedMs);
    expect(new Set(idleMidway).size).toBeGreaterThanOrEqual(3);
  } finally {
    done = true;
    await watching;
    retention.release();
  }
  expect((await pool.query(`SELECT count(*)::int AS n FROM runs WHERE schedule_id = ANY($1::uuid[])`, [schedules])).rows[0].n).toBe(0);

  // Without pacing nothing waits between the statements.
  const day2 = (await pool.query(`SELECT to_char(current_date - 6, 'YYYY-MM-DD') AS d`)).rows[0].d as string;
  for (const t of ["run_events", "run_logs"] as const) await ensurePartitionDays(pool, t, [day2]);
  await fillHistoryDay(pool, { day: day2, scheduleIds: schedules, everySeconds: 3600, partitioned: true });
  const c = await pool.connect();
  try {
    const r = await expireRuns(c, { defaultDays: 1, batchSize: 7, summarizedBefore: today, pauseRatio: 0 });
    expect(r).toMatchObject({ runs: 96, batches: 15, pausedMs: 0 });
  } finally {
    c.release();
  }
});

test("runs go in planned order for the common retention and per schedule for the others: shorter and longer ones each keep what they should", async () => {
  const d = async (n: number) => (await pool.query(`SELECT to_char(current_date - $1::int, 'YYYY-MM-DD') AS d`, [n])).rows[0].d as string;
  const days = [await d(9), await d(3), await d(2)];
  for (const t of ["run_events", "run_logs"] as const) await ensurePartitionDays(pool, t, days);
  // Three on the default (2 days), one keeping 1 day, one 5 days, one 10 years.
  const [a, b, c, short, long, forever] = await insertHistorySchedules(pool, 6, "mixed");
  await pool.query(`UPDATE schedules SET retention_days = 1 WHERE id = $1`, [short]);
  await pool.query(`UPDATE schedules SET retention_days = 5 WHERE id = $1`, [long]);
  await pool.query(`UPDATE schedules SET retention_days = 3650 WHERE id = $1`, [forever]);
  const all = [a!, b!, c!, short!, long!, forever!];
  for (const day of days) await fillHistoryDay(pool, { day, scheduleIds: all, everySeconds: 3600, partitioned: true });
  // An old run still running is never removed.
  await pool.query(
    `UPDATE runs SET state = 'running', finished_at = NULL WHERE id = (SELECT id FROM runs WHERE schedule_id = $1 ORDER BY planned_at LIMIT 1)`,
    [a],
  );
  const today = await d(0);
  const c1 = await pool.connect();
  try {
    await expireRuns(c1, { defaultDays: 2, batchSize: 10, summarizedBefore: today });
  } finally {
    c1.release();
  }
  const { rows } = await pool.query<{ schedule_id: string; day: string; n: number }>(
    `SELECT schedule_id, to_char(planned_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, count(*)::int AS n FROM runs
      WHERE schedule_id = ANY($1::uuid[]) GROUP BY 1, 2`,
    [all],
  );
  const left = (s: string | undefined, day: string) => rows.find((r) => r.schedule_id === s && r.day === day)?.n ?? 0;
  // Default (2 days): days 9 and 3 gone but the running run; day 2 kept.
  expect([left(a, days[0]!), left(a, days[1]!), left(a, days[2]!)]).toEqual([1, 0, 24]);
  expect([left(b, days[0]!), left(b, days[1]!), left(b, days[2]!)]).toEqual([0, 0, 24]);
  expect([left(c, days[0]!), left(c, days[1]!), left(c, days[2]!)]).toEqual([0, 0, 24]);
  // 1 day: all three days gone; 5 days: only day 9 gone; 10 years: all kept.
  expect([left(short, days[0]!), left(short, days[1]!), left(short, days[2]!)]).toEqual([0, 0, 0]);
  expect([left(long, days[0]!), left(long, days[1]!), left(long, days[2]!)]).toEqual([0, 24, 24]);
  expect([left(forever, days[0]!), left(forever, days[1]!), left(forever, days[2]!)]).toEqual([24, 24, 24]);
});

test("yielding to the fleet's runs: a batch waits while a run just due has not started, until it starts or the wait's cap; a run due long ago holds nothing", async () => {
  const today = (await pool.query(`SELECT to_char(current_date, 'YYYY-MM-DD') AS d`)).rows[0].d as string;
  const [schedule] = await insertHistorySchedules(pool, 1, "yield");
  /** One expired day of this schedule's runs, with one of them turned into a live run due `dueIn` ms from now. */
  const plant = async (daysAgo: number, dueIn: number) => {
    const day = (await pool.query(`SELECT to_char(current_date - $1::int, 'YYYY-MM-DD') AS d`, [daysAgo])).rows[0].d as string;
    for (const t of ["run_events", "run_logs"] as const) await ensurePartitionDays(pool, t, [day]);
    expect(await fillHistoryDay(pool, { day, scheduleIds: [schedule!], everySeconds: 3600, partitioned: true })).toBe(24);
    const { rows } = await pool.query(
      `UPDATE runs SET state = 'queued', started_at = NULL, finished_at = NULL, due_at = clock_timestamp() + $2 * interval '1 ms'
        WHERE id = (SELECT id FROM runs WHERE schedule_id = $1 AND state = 'succeeded' AND planned_at::date = $3::date LIMIT 1) RETURNING id`,
      [schedule, dueIn, day],
    );
    return rows[0].id as string;
  };
  const finished = async () =>
    (await pool.query(`SELECT count(*)::int AS n FROM runs WHERE schedule_id = $1 AND state NOT IN ('queued', 'running')`, [schedule]))
      .rows[0].n as number;
  const c = await pool.connect();
  try {
    // A run due 200 ms ago waits to start; the "worker" starts it 400 ms from now: the batch waits for that, no longer.
    const live = await plant(3, -200);
    const starting = new Promise((r) => setTimeout(r, 400)).then(() =>
      pool.query(`UPDATE runs SET state = 'running', started_at = clock_timestamp() WHERE id = $1`, [live]),
    );
    const y = { marginMs: 100, maxWaitMs: 5000 };
    // 10 a batch: a gap is looked for before the second and third (never before a pass's first batch).
    const r1 = await expireRuns(c, { defaultDays: 1, batchSize: 10, summarizedBefore: today, pauseRatio: 0, yieldToRuns: y });
    await starting;
    // (the earlier tests' leftovers past their horizon go too)
    expect(r1.runs).toBeGreaterThanOrEqual(23);
    expect(await finished()).toBe(0);
    expect(r1.yields).toBe(1);
    expect(r1.yieldedMs).toBeGreaterThanOrEqual(300);
    expect(r1.yieldedMs).toBeLessThan(1000 + 500); // it would give up once the run is RECENT_DUE_MS late

    // Never started: the batch waits at most maxWaitMs.
    await plant(4, -100);
    const r2 = await expireRuns(c, {
      defaultDays: 1,
      batchSize: 10,
      summarizedBefore: today,
      pauseRatio: 0,
      yieldToRuns: { ...y, maxWaitMs: 250 },
    });
    expect(r2.runs).toBe(23);
    expect(r2.yields).toBe(2);
    expect(r2.yieldedMs).toBeGreaterThanOrEqual(480);
    expect(r2.yieldedMs).toBeLessThan(1500);

    // Due in 300 ms with a margin of 1 s: after the first batch the next would end too close to it, so it waits until
    // the run is due and has started (at 600 ms), and only then deletes; at 450 ms only the first batch has gone.
    const soon = await plant(5, 300);
    const t0 = performance.now();
    const r3p = expireRuns(c, {
      defaultDays: 1,
      batchSize: 10,
      summarizedBefore: today,
      pauseRatio: 0,
      yieldToRuns: { marginMs: 1000, maxWaitMs: 5000 },
    });
    await new Promise((r) => setTimeout(r, 450));
    expect(await finished()).toBe(13);
    await new Promise((r) => setTimeout(r, 150));
    await pool.query(`UPDATE runs SET state = 'running', started_at = clock_timestamp() WHERE id = $1`, [soon]);
    const r3 = await r3p;
    expect(r3.runs).toBe(23);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(600);
    expect(r3.yieldedMs).toBeGreaterThanOrEqual(550);

    // Due 5 s ago and never started (waiting on a group, a rate, a handler nobody runs): not waited for.
    await plant(6, -5000);
    const r4 = await expireRuns(c, { defaultDays: 1, batchSize: 10, summarizedBefore: today, pauseRatio: 0, yieldToRuns: y });
    expect(r4).toMatchObject({ runs: 23, yields: 0, yieldedMs: 0 });

    // One batch (nothing more to expire after it): no gap is looked for at all, due runs or not.
    await plant(8, -100);
    const one = await expireRuns(c, { defaultDays: 1, batchSize: 5000, summarizedBefore: today, pauseRatio: 0, yieldToRuns: y });
    expect(one).toMatchObject({ runs: 23, yields: 0, yieldedMs: 0 });

    // A backlog due 3 s ago (a top-of-the-hour fan-out still being started): the batches wait while it drains. The
    // "workers" start one of its 20 runs every 20 ms; between batches (paced ≥ 20 ms) a look sees it shrink.
    const day = (await pool.query(`SELECT to_char(current_date - 7, 'YYYY-MM-DD') AS d`)).rows[0].d as string;
    for (const t of ["run_events", "run_logs"] as const) await ensurePartitionDays(pool, t, [day]);
    await fillHistoryDay(pool, { day, scheduleIds: [schedule!], everySeconds: 1800, partitioned: true });
    const { rows: fanout } = await pool.query<{ id: string }>(
      `UPDATE runs SET state = 'queued', started_at = NULL, finished_at = NULL, due_at = clock_timestamp() - interval '3 s'
        WHERE id IN (SELECT id FROM runs WHERE schedule_id = $1 AND state = 'succeeded' AND planned_at::date = $2::date LIMIT 20) RETURNING id`,
      [schedule, day],
    );
    expect(fanout).toHaveLength(20);
    let started = 0;
    const starter = (async () => {
      for (const { id } of fanout) {
        await new Promise((r) => setTimeout(r, 20));
        await pool.query(`UPDATE runs SET state = 'running', started_at = clock_timestamp() WHERE id = $1`, [id]);
        started++;
      }
    })();
    const r5 = await expireRuns(c, {
      defaultDays: 1,
      batchSize: 5,
      summarizedBefore: today,
      pauseRatio: 20,
      maxPauseMs: 100,
      yieldToRuns: y,
    });
    const startedWhenDone = started;
    await starter;
    expect(r5.runs).toBe(48 - 20);
    expect(r5.yieldedMs).toBeGreaterThanOrEqual(200);
    // The pass ended its waits once the backlog stopped shrinking: (nearly) all of it had started by then.
    expect(startedWhenDone).toBeGreaterThanOrEqual(15);
  } finally {
    c.release();
  }
});
