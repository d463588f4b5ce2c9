// The run read models (schedule_hourly_outcomes, schedule_last_runs, vigil_console_version) are kept by one trigger
// per UPDATE statement (migration 20261203300000): after batches of transitions of many runs in single statements —
// late starts, successes, hollow and failed ends, a re-run leaving a failed class — they must equal a recount from
// the runs themselves, as the per-row triggers they replace kept them.
import { describe, expect, it } from "vitest";
import { useTestDatabase } from "@/test/db";
import { getPool } from "@/core/db/pool";

useTestDatabase("run_summaries");

const RECOUNT_HOURLY = `
  SELECT r.schedule_id, date_trunc('hour', r.planned_at) AS hour, sum(c.late)::int AS late, sum(c.missed)::int AS missed,
         sum(c.hollow)::int AS hollow, sum(c.failed)::int AS failed
    FROM runs r JOIN schedules s ON s.id = r.schedule_id
   CROSS JOIN LATERAL vigil_run_outcome_classes(r.state, r.lateness_ms, s.start_jitter_ms) c
   GROUP BY 1, 2
  HAVING sum(c.late + c.missed + c.hollow + c.failed) > 0
   ORDER BY 1, 2`;
const KEPT_HOURLY = `
  SELECT schedule_id, hour, late, missed, hollow, failed FROM schedule_hourly_outcomes
   WHERE late + missed + hollow + failed > 0 ORDER BY 1, 2`;
const RECOUNT_LAST = `
  SELECT DISTINCT ON (r.schedule_id) r.schedule_id, r.planned_at, r.state
    FROM runs r
   WHERE r.state IN ('succeeded', 'failed', 'timed_out', 'cancelled', 'skipped_overlap', 'missed', 'paused', 'hollow', 'zombie')
   ORDER BY r.schedule_id, r.planned_at DESC`;
const KEPT_LAST = `SELECT schedule_id, planned_at, state FROM schedule_last_runs ORDER BY schedule_id`;

describe("run read models kept per statement", () => {
  it("equal a recount after batched late starts, ends and a re-run, and the console version moves only on visible changes", async () => {
    const pool = getPool();
    await pool.query(
      `INSERT INTO schedules (name, handler, trigger, start_jitter_ms)
       SELECT 'sum-' || g, 'demo.noop', '{"kind":"interval","everySeconds":60}', CASE WHEN g % 3 = 0 THEN 5000 ELSE 0 END
         FROM generate_series(1, 12) g`,
    );
    // Three runs per schedule in three past hours, queued.
    await pool.query(
      `INSERT INTO runs (schedule_id, kind, planned_at, due_at, idempotency_key, state, handler, payload, timeout_seconds, grace_seconds,
                         max_attempts, enqueued_at)
       SELECT s.id, 'scheduled', date_trunc('hour', clock_timestamp()) - make_interval(hours => h), date_trunc('hour', clock_timestamp()) - make_interval(hours => h),
              s.id || ':' || h, 'queued', s.handler, '{}', 60, 5, 1, clock_timestamp()
         FROM schedules s, generate_series(1, 3) h`,
    );
    const version = async () => Number((await pool.query(`SELECT last_value FROM vigil_console_version`)).rows[0].last_value);
    const v0 = await version();
    // A heartbeat-like update changes nothing the console shows.
    await pool.query(`UPDATE runs SET updated_at = clock_timestamp()`);
    expect(await version()).toBe(v0);

    // One statement starts every run, most of them late (some within their schedule's jitter).
    await pool.query(
      `UPDATE runs SET state = 'running', attempt = 1, started_at = clock_timestamp(),
              lateness_ms = CASE WHEN abs(hashtext(id::text)) % 4 = 0 THEN 200 WHEN abs(hashtext(id::text)) % 4 = 1 THEN 3000 ELSE 9000 END`,
    );
    expect(await version()).toBeGreaterThan(v0);
    // One statement ends them all: successes, hollow and failed ones.
    await pool.query(
      `UPDATE runs SET finished_at = clock_timestamp(),
              state = CASE abs(hashtext(id::text || 'x')) % 3 WHEN 0 THEN 'succeeded' WHEN 1 THEN 'hollow' ELSE 'failed' END`,
    );
    expect(await pool.query(KEPT_HOURLY).then((r) => r.rows)).toEqual(await pool.query(RECOUNT_HOURLY).then((r) => r.rows));
    expect(await pool.query(KEPT_LAST).then((r) => r.rows)).toEqual(await pool.query(RECOUNT_LAST).then((r) => r.rows));

    // A re-run of the failed runs (a class left), then their success on time: the failed counts go back down.
    await pool.query(`UPDATE runs SET state = 'queued', finished_at = NULL, lateness_ms = NULL, started_at = NULL WHERE state = 'failed'`);
    await pool.query(
      `UPDATE runs SET state = 'succeeded', started_at = clock_timestamp(), finished_at = clock_timestamp(), lateness_ms = 10 WHERE state = 'queued'`,
    );
    const kept = await pool.query(KEPT_HOURLY).then((r) => r.rows);
    expect(kept).toEqual(await pool.query(RECOUNT_HOURLY).then((r) => r.rows));
    expect(kept.reduce((n, r) => n + r.failed, 0)).toBe(0);
    expect(kept.reduce((n, r) => n + r.late + r.hollow, 0)).toBeGreaterThan(0);
    expect(await pool.query(KEPT_LAST).then((r) => r.rows)).toEqual(await pool.query(RECOUNT_LAST).then((r) => r.rows));
  });
});
