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
