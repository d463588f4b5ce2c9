// Three real workers, each with its own dispatcher, pools and pg-boss client, race over thousands of runs of many
// schedules due at one instant. Whatever path takes a job (a batch fetch, a take by key, the claim under locks),
// each pg-boss job is taken once, each run starts once, nothing deadlocks, and the fan-out drains within a bound.
// After a fan-out with every kind of end (success, failure, hollow, late), every read model the triggers on `runs`
// keep (fleet counters, the console overview, run summaries, trouble counters) equals a recount from `runs`.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import type { PgBoss } from "pg-boss";
import { useTestDatabase, testPool } from "../../test/db";
import { startWorker, type TestWorker } from "../../test/worker-process";
import { waitFor } from "../../test/wait-for";
import { countFunctionCalls, waitForStepCalls } from "../../test/step-calls";
import { startTestBoss, waitForWorkerReady } from "../../test/run-fixtures";
import { withTransaction } from "../../core/db/pool";
import { sendRunJobs } from "../../core/queue/send-run-job";
import { aggregateFleet } from "../../core/metrics/aggregate-fleet";
import { readFleetRuns } from "../../core/metrics/read-fleet-runs";
import { getScheduleTroubleCounters } from "../../core/metrics/get-schedule-trouble-counters";
import { foldFleetDeltas } from "../../core/metrics/fold-fleet-deltas";
import { getRunsOverview, getRunsOverviewDirect } from "../../core/runs/read/overview";
import type { HistogramCounts } from "../../core/metrics/aggregate-runs";

const db = useTestDatabase("racing_dispatchers");
const WORKERS = 3;
const RUNS = 2000;
const SCHEDULES = 200;
let pool: pg.Pool;
let boss: PgBoss;
const workers: TestWorker[] = [];

beforeAll(async () => {
  pool = testPool(db.url, 4);
  // Counted per function (pg_stat_user_functions): the race must go through the step (one statement per batch) too.
  await countFunctionCalls(pool);
  boss = await startTestBoss(db.url);
  for (let i = 0; i < WORKERS; i++) workers.push(startWorker(db.url, { VIGIL_WORKER_CONCURRENCY: "8" }));
  await Promise.all(workers.map((w) => waitForWorkerReady(w)));
}, 180_000);

afterAll(async () => {
  await Promise.all(workers.map((w) => w.stop()));
  await boss?.stop({ graceful: false, close: true });
  await pool?.end();
});

/**
 * Inserts `perSchedule` queued runs for every schedule named `prefix%`, all due at one instant a few seconds ahead, and
 * sends their jobs as the planner does (500 per statement). Returns the runs.
 */
async function fanOut(prefix: string, perSchedule: number): Promise<{ id: string }[]> {
  const { rows: n } = await pool.query(`SELECT count(*)::int AS n FROM schedules WHERE name LIKE $1 || '%'`, [prefix]);
  const total = n[0].n * perSchedule;
  const { rows: t } = await pool.query(`SELECT date_trunc('milliseconds', clock_timestamp() + make_interval(secs => $1)) AS at`, [
    3 + total / 500,
  ]);
  const { rows: runs } = await pool.query(
    `INSERT INTO runs (schedule_id, kind, planned_at, due_at, idempotency_key, state, handler, payload, timeout_seconds, grace_seconds,
                       max_attempts, concurrency_group, enqueued_at)
     SELECT s.id, 'manual', $1, $1, 'manual:' || s.id || ':' || gen_random_uuid(), 'queued', s.handler, s.payload, s.timeout_seconds,
            s.grace_seconds, s.retry_max_attempts, s.concurrency_group, clock_timestamp()
       FROM schedules s, generate_series(1, $3::int) k
      WHERE s.name LIKE $2 || '%'
     RETURNING id, handler, due_at, timeout_seconds, grace_seconds`,
    [t[0].at, prefix, perSchedule],
  );
  for (let i = 0; i < runs.length; i += 500) {
    await withTransaction(
      (tx) =>
        sendRunJobs(
          tx,
          boss,
          runs.slice(i, i + 500).map((r) => ({
            runId: r.id,
            handler: r.handler,
            attempt: 1,
            wake: 0,
            dueAt: r.due_at,
            timeoutSeconds: r.timeout_seconds,
            graceSeconds: r.grace_seconds,
          })),
        ),
      pool,
    );
  }
  return runs;
}

async function waitForEnd(runIds: string[], timeoutMs: number): Promise<void> {
  await waitFor(
    `all ${runIds.length} runs to end`,
    async () =>
      (
        await pool.query(
          `SELECT count(*)::int AS n FROM runs WHERE id = ANY($1::uuid[]) AND state IN ('planned', 'queued', 'running', 'retrying')`,
          [runIds],
        )
      ).rows[0].n === 0,
    { timeoutMs, intervalMs: 250 },
  );
}

async function deadlocks(): Promise<number> {
  const { rows } = await pool.query(`SELECT deadlocks::int AS n FROM pg_stat_database WHERE datname = current_database()`);
  return rows[0].n;
}

describe(`${WORKERS} workers racing over ${RUNS} due runs of ${SCHEDULES} schedules`, () => {
  it("take each job once and start each run once, without a deadlock, within the bound", async () => {
    await pool.query(
      `INSERT INTO schedules (name, handler, payload, trigger, overlap_policy, starting_deadline_seconds)
       SELECT 'race-' || g, 'demo.noop', '{}'::jsonb, '{"kind":"once","at":"2099-01-01T00:00:00Z"}'::jsonb, 'allow', 3600
         FROM generate_series(1, $1::int) g`,
      [SCHEDULES],
    );
    const deadlocksBefore = await deadlocks();
    const runs = await fanOut("race-", RUNS / SCHEDULES);
    expect(runs).toHaveLength(RUNS);
    const ids = runs.map((r) => r.id);
    const started = performance.now();
    await waitForEnd(ids, 300_000);
    const drainMs = performance.now() - started;

    const { rows: states } = await pool.query(
      `SELECT state, attempt, count(*)::int AS n FROM runs WHERE id = ANY($1::uuid[]) GROUP BY 1, 2`,
      [ids],
    );
    expect(states).toEqual([{ state: "succeeded", attempt: 1, n: RUNS }]);
    // Each run started once: one attempt row each, and never two 'started' events.
    const { rows: attempts } = await pool.query(
      `SELECT count(*)::int AS attempts, count(DISTINCT run_id)::int AS runs FROM attempts WHERE run_id = ANY($1::uuid[])`,
      [ids],
    );
    expect(attempts[0]).toEqual({ attempts: RUNS, runs: RUNS });
    const { rows: twice } = await pool.query(
      `SELECT run_id FROM run_events WHERE run_id = ANY($1::uuid[]) AND type = 'started' GROUP BY run_id HAVING count(*) > 1`,
      [ids],
    );
    expect(twice, "runs started twice").toEqual([]);
    // Each pg-boss job was active once: a job taken a second time has its retry_count raised by pg-boss's fetch.
    await waitFor(
      "every job to be settled",
      async () =>
        (await pool.query(`SELECT count(*)::int AS n FROM pgboss.job WHERE data->>'runId' = ANY($1::text[]) AND state = 'active'`, [ids]))
          .rows[0].n === 0,
      { timeoutMs: 60_000, intervalMs: 250 },
    );
    const { rows: jobs } = await pool.query(
      `SELECT state, retry_count, started_on IS NOT NULL AS started, count(*)::int AS n FROM pgboss.job
        WHERE data->>'runId' = ANY($1::text[]) GROUP BY 1, 2, 3`,
      [ids],
    );
    expect(jobs).toEqual([{ state: "completed", retry_count: 0, started: true, n: RUNS }]);
    // The work was shared: every worker started runs.
    const { rows: byWorker } = await pool.query(`SELECT count(DISTINCT worker_id)::int AS n FROM attempts WHERE run_id = ANY($1::uuid[])`, [
      ids,
    ]);
    expect(byWorker[0].n).toBe(WORKERS);
    // No deadlock: none counted by PostgreSQL (a backend flushes its statistics within a second of going idle, long
    // before the drain and the settling above are over), none logged by a worker.
    expect(await deadlocks()).toBe(deadlocksBefore);
    for (const w of workers) expect(w.logs.filter((l) => /deadlock|40P01/i.test(l))).toEqual([]);
    // The backed-up queues went through the step (vigil_run_step), not only through pg-boss's fetch and the claim.
    const steps = await waitForStepCalls(pool);
    console.log(`racing dispatchers: ${RUNS} runs drained in ${Math.round(drainMs)} ms by ${WORKERS} workers, ${steps} steps`);
  }, 420_000);

  it("leave every read model equal to a recount from runs after a fan-out with every kind of end", async () => {
    // 300 runs: successes, failures (retried once, then failed), hollow ends (fewer records than expected); the
    // fan-out itself makes many of them start late.
    await pool.query(
      `INSERT INTO schedules (name, handler, payload, trigger, overlap_policy, starting_deadline_seconds, retry_max_attempts,
                              retry_base_seconds, retry_max_seconds, expect_records_min)
       SELECT 'recount-' || g,
              CASE g % 3 WHEN 0 THEN 'demo.noop' WHEN 1 THEN 'demo.flaky' ELSE 'demo.sleep' END,
              CASE g % 3 WHEN 0 THEN '{}' WHEN 1 THEN '{"p":1,"ms":0}' ELSE '{"ms":1,"records":0}' END::jsonb,
              '{"kind":"once","at":"2099-01-01T00:00:00Z"}'::jsonb, 'allow', 3600,
              CASE g % 3 WHEN 1 THEN 2 ELSE 1 END, 1, 1, CASE g % 3 WHEN 2 THEN 1 END
         FROM generate_series(1, 30) g`,
    );
    const runs = await fanOut("recount-", 10);
    expect(runs).toHaveLength(300);
    await waitForEnd(
      runs.map((r) => r.id),
      300_000,
    );
    const { rows: ends } = await pool.query(`SELECT state, count(*)::int AS n FROM runs WHERE id = ANY($1::uuid[]) GROUP BY 1 ORDER BY 1`, [
      runs.map((r) => r.id),
    ]);
    expect(ends).toEqual([
      { state: "failed", n: 100 },
      { state: "hollow", n: 100 },
      { state: "succeeded", n: 100 },
    ]);

    await expectModelsEqualRecount();
    // Once more after the worker's fold has moved the appended deltas into the minute rows.
    await foldFleetDeltas(pool);
    await expectModelsEqualRecount();
  }, 420_000);
});

const round = (h: HistogramCounts) => ({ ...h, sum: Math.round(h.sum * 1000) / 1000 });

async function expectModelsEqualRecount(): Promise<void> {
  // Fleet counters and the console overview: one snapshot for the model and the recount (the window moves with the clock).
  const c = await pool.connect();
  try {
    await c.query("BEGIN ISOLATION LEVEL REPEATABLE READ");
    const recount = await aggregateFleet(c, 3600);
    const model = await readFleetRuns(c, 3600);
    const overviewRecount = await getRunsOverviewDirect(c);
    const overview = await getRunsOverview(c);
    await c.query("COMMIT");
    const fleet = (f: typeof model) => ({
      byState: Object.fromEntries([...f.byState].filter(([, n]) => n !== 0).sort()),
      retries: f.retries,
      lateness: round(f.lateness),
      gap: round(f.gap),
      duration: round(f.duration),
    });
    expect(fleet(model), "fleet counters").toEqual(fleet(recount));
    expect(overview.lastHour, "console overview").toEqual(overviewRecount.lastHour);
  } finally {
    c.release();
  }

  // Run summaries: hourly outcome classes and each schedule's last ended run.
  const { rows: hourlyRecount } = await pool.query(
    `SELECT r.schedule_id, date_trunc('hour', r.planned_at) AS hour, sum(c.late)::int AS late, sum(c.missed)::int AS missed,
            sum(c.hollow)::int AS hollow, sum(c.failed)::int AS failed
       FROM runs r JOIN schedules s ON s.id = r.schedule_id
      CROSS JOIN LATERAL vigil_run_outcome_classes(r.state, r.lateness_ms, s.start_jitter_ms) c
      GROUP BY 1, 2 HAVING sum(c.late + c.missed + c.hollow + c.failed) > 0 ORDER BY 1, 2`,
  );
  const { rows: hourly } = await pool.query(
    `SELECT schedule_id, hour, late, missed, hollow, failed FROM schedule_hourly_outcomes
      WHERE late + missed + hollow + failed > 0 ORDER BY 1, 2`,
  );
  expect(hourlyRecount.length, "some runs are in a trouble class").toBeGreaterThan(0);
  expect(hourly, "schedule_hourly_outcomes").toEqual(hourlyRecount);
  const { rows: lastRecount } = await pool.query(
    `SELECT DISTINCT ON (r.schedule_id) r.schedule_id, r.planned_at, r.state FROM runs r
      WHERE r.state IN ('succeeded', 'failed', 'timed_out', 'cancelled', 'skipped_overlap', 'missed', 'paused', 'hollow', 'zombie')
      ORDER BY r.schedule_id, r.planned_at DESC`,
  );
  const { rows: last } = await pool.query(`SELECT schedule_id, planned_at, state FROM schedule_last_runs ORDER BY schedule_id`);
  expect(
    last.map((l) => l.schedule_id),
    "schedule_last_runs",
  ).toEqual(lastRecount.map((l) => l.schedule_id).sort());
  // Runs of one schedule share their planned instant here: the last run's state is one of that instant's.
  for (const l of last) {
    const states = (
      await pool.query(`SELECT DISTINCT state FROM runs WHERE schedule_id = $1 AND planned_at = $2`, [l.schedule_id, l.planned_at])
    ).rows.map((r) => r.state);
    expect(states, `schedule_last_runs of ${l.schedule_id}`).toContain(l.state);
  }

  // Trouble counters: nothing here left a class once in it, so each counter is the number of the schedule's runs in it now.
  const { rows: troubleRecount } = await pool.query(
    `SELECT s.name AS schedule,
            count(*) FILTER (WHERE r.state = 'missed')::int AS missed,
            count(*) FILTER (WHERE r.state = 'hollow')::int AS hollow,
            count(*) FILTER (WHERE r.state IN ('failed', 'timed_out'))::int AS failed,
            count(*) FILTER (WHERE r.kind <> 'backfill' AND r.reruns = 0 AND r.lateness_ms > coalesce(s.start_jitter_ms, 0) + 1000)::int AS late
       FROM runs r JOIN schedules s ON s.id = r.schedule_id GROUP BY s.name`,
  );
  const nonZero = (rows: { schedule: string; missed: number; hollow: number; failed: number; late: number }[]) =>
    rows
      .filter((r) => r.missed + r.hollow + r.failed + r.late > 0)
      .map((r) => ({ schedule: r.schedule, missed: r.missed, hollow: r.hollow, failed: r.failed, late: r.late }))
      .sort((a, b) => a.schedule.localeCompare(b.schedule));
  expect(nonZero(await getScheduleTroubleCounters(pool)), "trouble counters").toEqual(nonZero(troubleRecount));
}
