// Two workers whose process clocks are off by +10 and −10 minutes (VIGIL_TEST_CLOCK_SKEW_MS) are the only
// planners and executors: every fire is still planned at its instant, enqueued and started on time by the
// database clock — nothing early, nothing ten minutes late, nothing twice.
import { afterAll, describe, expect, it } from "vitest";
import { useTestDatabase } from "../test/db";
import type { TestWorker } from "../test/worker-process";
import { startWarmWorker } from "../test/warm-worker";
import { waitFor } from "../test/wait-for";
import { systemActor } from "../core/auth/roles";
import { createSchedule } from "../core/schedules/create-schedule";
import { computeFireTimesBetween } from "../core/schedules/compute-next-fire-times";
import { getScheduleOrThrow } from "../core/schedules/schedule-record";
import { ENQUEUE_AHEAD_MS } from "../core/runs/plan/enqueue-due-runs";
import { getPool, withTransaction } from "../core/db/pool";

const db = useTestDatabase("planner_clock_skew");
const WINDOW_MS = 20_000;
const HORIZON_S = 20;
const workers: TestWorker[] = [];
afterAll(async () => {
  await Promise.all(workers.map((w) => w.kill()));
});

describe("workers with skewed clocks", () => {
  it("plan and fire nothing early, late or twice", { timeout: 300_000 }, async () => {
    const pool = getPool();
    const env = { VIGIL_PLAN_AHEAD_SECONDS: String(HORIZON_S), VIGIL_HEARTBEAT_MS: "1000", VIGIL_WORKER_CONCURRENCY: "4" };
    workers.push(await startWarmWorker(db.url, { ...env, VIGIL_TEST_CLOCK_SKEW_MS: "600000" }));
    workers.push(await startWarmWorker(db.url, { ...env, VIGIL_TEST_CLOCK_SKEW_MS: "-600000" }));
    const ids = await withTransaction(async (tx) => {
      const made: string[] = [];
      for (let i = 0; i < 12; i++) {
        const trigger =
          i % 2 === 0
            ? { kind: "interval", everySeconds: 2 + (i % 3) }
            : { kind: "cron", cron: `${i % 3}-59/3 * * * * *`, timezone: "Asia/Kolkata" };
        // A generous starting deadline: on a busy machine a run may start late, but must not be missed for it.
        const input = { name: `skew-${i}`, handler: "demo.noop", trigger, overlapPolicy: "allow", startingDeadlineSeconds: 300 };
        made.push((await createSchedule(input, systemActor("test"), { db: tx })).id);
      }
      return made;
    }, pool);
    const start: Date = (await pool.query(`SELECT clock_timestamp() AS now`)).rows[0].now;
    await waitFor(
      "the test window on the database clock",
      async () =>
        (await pool.query(`SELECT clock_timestamp() >= $1::timestamptz AS done`, [new Date(start.getTime() + WINDOW_MS)])).rows[0].done,
      { timeoutMs: WINDOW_MS + 20_000, intervalMs: 500 },
    );
    const cutoff = new Date(start.getTime() + WINDOW_MS - 5_000);
    await waitFor(
      "every run due before the cutoff to finish",
      async () =>
        (
          await pool.query(`SELECT count(*)::int AS n FROM runs WHERE planned_at <= $1 AND state IN ('planned', 'queued', 'running')`, [
            cutoff,
          ])
        ).rows[0].n === 0,
      { timeoutMs: 60_000, intervalMs: 500 },
    );
    const end: Date = (await pool.query(`SELECT clock_timestamp() AS now`)).rows[0].now;
    await Promise.all(workers.map((w) => w.stop()));

    // Planned at the trigger's instants: not shifted by either worker's clock, none missing, none doubled.
    for (const id of ids) {
      const s = await getScheduleOrThrow(pool, id);
      const expected = computeFireTimesBetween(s.trigger, s.createdAt, cutoff, { anchor: s.createdAt }).map((f) => f.at.toISOString());
      const { rows } = await pool.query(`SELECT planned_at FROM runs WHERE schedule_id = $1 AND planned_at <= $2 ORDER BY planned_at`, [
        id,
        cutoff,
      ]);
      expect(rows.map((r) => r.planned_at.toISOString())).toEqual(expected);
    }
    // Not planned further ahead than the horizon of the database clock (a +10 min clock would plan 10 min ahead).
    const { rows: ahead } = await pool.query(`SELECT max(planned_at) AS last FROM runs`);
    expect(ahead[0].last.getTime()).toBeLessThanOrEqual(end.getTime() + HORIZON_S * 1000);

    const { rows: runs } = await pool.query(
      `SELECT r.id, r.state, r.planned_at, r.due_at, r.enqueued_at, r.started_at, r.lateness_ms,
              (SELECT j.start_after FROM pgboss.job j WHERE j.data->>'runId' = r.id::text LIMIT 1) AS start_after,
              (SELECT count(*)::int FROM pgboss.job j WHERE j.data->>'runId' = r.id::text) AS jobs,
              (SELECT count(*)::int FROM attempts a WHERE a.run_id = r.id) AS attempts,
              (SELECT count(*)::int FROM run_events e WHERE e.run_id = r.id AND e.type = 'started') AS started
         FROM runs r WHERE r.planned_at <= $1`,
      [cutoff],
    );
    expect(runs.length).toBeGreaterThan(50);
    for (const r of runs) {
      expect({ id: r.id, state: r.state, jobs: r.jobs, attempts: r.attempts, started: r.started }).toEqual({
        id: r.id,
        state: "succeeded",
        jobs: 1,
        attempts: 1,
        started: 1,
      });
      // Enqueued no earlier than the enqueue horizon before its due time, its job due exactly then.
      expect(r.enqueued_at.getTime()).toBeGreaterThanOrEqual(r.due_at.getTime() - ENQUEUE_AHEAD_MS - 1000);
      expect(r.start_after.getTime()).toBe(r.due_at.getTime());
      // Started not before its planned time, and nowhere near the ten minutes a skewed clock would add (a busy
      // two-core machine alone can make a start several seconds late).
      expect(r.started_at.getTime()).toBeGreaterThanOrEqual(r.planned_at.getTime());
      expect(r.lateness_ms).toBeLessThan(60_000);
    }
    const late = runs.map((r) => r.lateness_ms as number).sort((a, b) => a - b);
    console.log(`clock skew ±10 min: ${runs.length} runs, lateness p50 ${late[Math.floor(late.length / 2)]} ms, max ${late.at(-1)} ms`);
  });
});
