// A top-of-the-hour fan-out on two real workers, through the one-round-trip claim and outcome paths
// (claim-free-runs.ts, finish-free-runs.ts) and the locked ones they hand over to: thousands of runs due at the
// same instant must keep every guarantee exact — no two attempts of a 'skip' schedule alive at once, no group
// above its limit, a second delivery of a job never runs the handler again, and every run ends in one outcome.
// While the queues are backed up, the batches go through the one-statement step (core/runs/step/run-step.ts).
// 2,000 runs by default so the suite stays quick on a shared 2-core machine; VIGIL_FANOUT_TEST_RUNS=10000 runs the
// fan-out benchmark's full 10,000 (passed in 82 s on this machine at load ~5).
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

const db = useTestDatabase("exec_fanout");
const RUNS = Number(process.env.VIGIL_FANOUT_TEST_RUNS ?? 2000);
const GROUPS = 4;
const GROUP_LIMIT = 3;
let pool: pg.Pool;
let boss: PgBoss;
const workers: TestWorker[] = [];

beforeAll(async () => {
  pool = testPool(db.url, 4);
  // Counted per function (pg_stat_user_functions), so the test can tell that the backlog went through the step.
  await countFunctionCalls(pool);
  boss = await startTestBoss(db.url);
  for (let i = 0; i < 2; i++) workers.push(startWorker(db.url, { VIGIL_WORKER_CONCURRENCY: "8" }));
  await Promise.all(workers.map((w) => waitForWorkerReady(w)));
}, 180_000);

afterAll(async () => {
  await Promise.all(workers.map((w) => w.stop()));
  await boss?.stop({ graceful: false, close: true });
  await pool?.end();
});

describe(`a fan-out of ${RUNS} runs due at the same instant`, () => {
  it("keeps overlap, group limits and duplicate suppression exact", async () => {
    // 60 %: pairs of runs of 'skip' schedules (the second of a pair is skipped unless the first already ended),
    // a fifth of them delivered twice; 40 %: runs of 'allow' schedules in groups of limit 3 that sleep 20 ms.
    const pairs = Math.floor((RUNS * 0.6) / 2);
    const grouped = RUNS - pairs * 2;
    await pool.query(`INSERT INTO concurrency_groups (name, max_running) SELECT 'fan-g' || g, $1 FROM generate_series(0, $2::int - 1) g`, [
      GROUP_LIMIT,
      GROUPS,
    ]);
    await pool.query(
      // A starting deadline of an hour: on a loaded machine the drain can take longer than the default minute, and a
      // run past it ends missed (rightly) instead of starting, which this test is not about.
      `INSERT INTO schedules (name, handler, payload, trigger, overlap_policy, concurrency_group, starting_deadline_seconds)
       SELECT 'fan-skip-' || g, 'demo.noop', '{}'::jsonb, '{"kind":"once","at":"2099-01-01T00:00:00Z"}'::jsonb, 'skip', NULL, 3600
         FROM generate_series(1, $1::int) g
       UNION ALL
       SELECT 'fan-grp-' || g, 'demo.sleep', '{"ms":20,"records":1}'::jsonb, '{"kind":"once","at":"2099-01-01T00:00:00Z"}'::jsonb, 'allow', 'fan-g' || (g % $3), 3600
         FROM generate_series(1, $2::int) g`,
      [pairs, grouped, GROUPS],
    );
    // Lead time for sending every job (500 per statement) before the instant they are all due.
    const { rows: t } = await pool.query(`SELECT date_trunc('milliseconds', clock_timestamp() + make_interval(secs => $1)) AS at`, [
      3 + RUNS / 500,
    ]);
    const at: Date = t[0].at;
    const { rows: runs } = await pool.query(
      `INSERT INTO runs (schedule_id, kind, planned_at, due_at, idempotency_key, state, handler, payload, timeout_seconds, grace_seconds,
                         max_attempts, concurrency_group, enqueued_at)
       SELECT s.id, 'manual', $1, $1, 'manual:' || s.id || ':' || gen_random_uuid(), 'queued', s.handler, s.payload, s.timeout_seconds,
              s.grace_seconds, s.retry_max_attempts, s.concurrency_group, clock_timestamp()
         FROM schedules s, generate_series(1, 2) k
        WHERE s.name LIKE 'fan-%' AND (k = 1 OR s.overlap_policy = 'skip')
       RETURNING id, handler, schedule_id, concurrency_group IS NULL AS exclusive`,
      [at],
    );
    expect(runs.length).toBe(RUNS);
    const duplicated = runs.filter((r) => r.exclusive).filter((_, i) => i % 5 === 0);
    const jobs = [
      ...runs.map((r) => ({ r, wake: 0 })),
      // The same attempt's job once more under another id: one of the two deliveries must be suppressed.
      ...duplicated.map((r) => ({ r, wake: 1 })),
    ];
    for (let i = 0; i < jobs.length; i += 500) {
      await withTransaction(
        (tx) =>
          sendRunJobs(
            tx,
            boss,
            jobs.slice(i, i + 500).map(({ r, wake }) => ({
              runId: r.id,
              handler: r.handler,
              attempt: 1,
              wake,
              dueAt: at,
              timeoutSeconds: 60,
              graceSeconds: 0,
            })),
          ),
        pool,
      );
    }
    const { rows: late } = await pool.query(`SELECT clock_timestamp() > $1 AS late`, [at]);
    expect(late[0].late, "enqueueing took longer than the lead time").toBe(false);

    await waitFor(
      "every fan-out run to end",
      // Ended: no longer waiting or running (a run that ended without a finish time, e.g. missed, must not hang this).
      async () =>
        (await pool.query(`SELECT count(*)::int AS n FROM runs WHERE state IN ('planned', 'queued', 'running', 'retrying')`)).rows[0].n ===
        0,
      { timeoutMs: 600_000, intervalMs: 250 },
    );

    const { rows: states } = await pool.query(`SELECT state, count(*)::int AS n FROM runs GROUP BY state ORDER BY state`);
    const byState = Object.fromEntries(states.map((s) => [s.state, s.n]));
    expect(Object.keys(byState).sort()).toEqual(expect.arrayContaining(["succeeded"]));
    expect((byState.succeeded ?? 0) + (byState.skipped_overlap ?? 0)).toBe(RUNS);
    // Every grouped run ran (nothing skips them); a pair's second run ran only if the first had ended.
    const { rows: attempts } = await pool.query(
      `SELECT count(*)::int AS attempts, count(DISTINCT run_id)::int AS runs FROM attempts a JOIN runs r ON r.id = a.run_id`,
    );
    expect(attempts[0]).toEqual({ attempts: byState.succeeded, runs: byState.succeeded });

    // Overlap: no two attempts of one 'skip' schedule alive at the same time.
    const { rows: overlaps } = await pool.query(
      `SELECT count(*)::int AS n FROM attempts a JOIN runs ra ON ra.id = a.run_id, attempts b JOIN runs rb ON rb.id = b.run_id
        WHERE ra.schedule_id = rb.schedule_id AND a.run_id < b.run_id AND ra.concurrency_group IS NULL
          AND a.started_at < b.finished_at AND b.started_at < a.finished_at`,
    );
    expect(overlaps[0].n).toBe(0);
    // Each pair ended as one success and one skip, or (the first ended before the second was claimed) two successes.
    const { rows: pairStates } = await pool.query(
      `SELECT string_agg(r.state, ',' ORDER BY r.state) AS states, count(*)::int AS n FROM runs r JOIN schedules s ON s.id = r.schedule_id
        WHERE s.overlap_policy = 'skip' GROUP BY r.schedule_id`,
    );
    for (const p of pairStates) expect(["skipped_overlap,succeeded", "succeeded,succeeded"]).toContain(p.states);

    // Groups: at no instant more attempts alive than the limit (a sweep over the recorded intervals).
    const { rows: intervals } = await pool.query(
      `SELECT r.concurrency_group AS g, a.started_at, a.finished_at FROM attempts a JOIN runs r ON r.id = a.run_id
        WHERE r.concurrency_group IS NOT NULL`,
    );
    expect(intervals.length).toBe(grouped);
    for (let g = 0; g < GROUPS; g++) {
      const edges = intervals
        .filter((i) => i.g === `fan-g${g}`)
        .flatMap((i) => [
          [i.started_at.getTime(), 1],
          [i.finished_at.getTime(), -1],
        ]) as [number, number][];
      edges.sort((x, y) => x[0] - y[0] || x[1] - y[1]);
      let n = 0;
      let max = 0;
      for (const [, d] of edges) max = Math.max(max, (n += d));
      expect(max, `group fan-g${g}`).toBeLessThanOrEqual(GROUP_LIMIT);
      expect(max, `group fan-g${g} was used to its limit`).toBe(GROUP_LIMIT);
    }

    // Duplicate deliveries: each duplicated run has exactly one suppressed delivery, and never a second attempt.
    // A duplicate's job can still be waiting when its run has ended (it is suppressed when a worker fetches it):
    // count only once every job of these runs has been delivered.
    await waitFor(
      "every fan-out job to be delivered",
      async () =>
        (
          await pool.query(
            `SELECT count(*)::int AS n FROM pgboss.job WHERE state IN ('created', 'retry', 'active') AND data->>'runId' = ANY($1::text[])`,
            [runs.map((r) => r.id)],
          )
        ).rows[0].n === 0,
      { timeoutMs: 120_000, intervalMs: 250 },
    );
    const { rows: suppressed } = await pool.query(
      `SELECT run_id, count(*)::int AS n FROM run_events WHERE type = 'duplicate_delivery_suppressed' GROUP BY run_id`,
    );
    expect(suppressed.length).toBe(duplicated.length);
    expect(new Set(suppressed.map((s) => s.run_id))).toEqual(new Set(duplicated.map((r) => r.id)));
    expect(suppressed.every((s) => s.n === 1)).toBe(true);
    // The backlog's batches went through the one-statement step (core/runs/step/run-step.ts), not only the idle path.
    await waitForStepCalls(pool);
  }, 900_000);
});
