// Three real worker processes plan and execute the same 200 schedules at once for a minute: every fire gets
// exactly one occurrence, one pg-boss job and one handler execution (ledger.post, whose effect is countable).
import { afterAll, describe, expect, it } from "vitest";
import { useTestDatabase } from "../test/db";
import type { TestWorker } from "../test/worker-process";
import { startWarmWorker } from "../test/warm-worker";
import { waitFor } from "../test/wait-for";
import { systemActor } from "../core/auth/roles";
import { createSchedule } from "../core/schedules/create-schedule";
import { computeFireTimesBetween } from "../core/schedules/compute-next-fire-times";
import { getScheduleOrThrow } from "../core/schedules/schedule-record";
import { getPool, withTransaction } from "../core/db/pool";

const db = useTestDatabase("planner_concurrency");
const SCHEDULES = 200;
const DURATION_MS = Number(process.env.VIGIL_PLANNER_TEST_MS ?? 60_000);
const workers: TestWorker[] = [];

afterAll(async () => {
  await Promise.all(workers.map((w) => w.kill()));
});

function scheduleInput(i: number) {
  return {
    name: `ledger-${i}`,
    handler: "ledger.post",
    payload: { from: `src-${i}`, to: `dst-${i}`, amount: 1 },
    // Every 10–24 s at different offsets, a quarter of them cron with seconds: ~12 fires a second in all.
    trigger:
      i % 4 === 0
        ? { kind: "cron", cron: `${i % 15}-59/15 * * * * *`, timezone: "Europe/Berlin" }
        : { kind: "interval", everySeconds: 10 + (i % 15) },
    overlapPolicy: "allow",
  };
}

describe("three planners, 200 schedules", () => {
  it(`plan and run every fire exactly once over ${DURATION_MS / 1000} s`, { timeout: DURATION_MS + 420_000 }, async () => {
    const pool = getPool();
    const t0 = performance.now();
    const progress = (what: string) => console.log(`[planner-concurrency +${Math.round((performance.now() - t0) / 1000)} s] ${what}`);
    // A short horizon makes the planners re-plan (and race each other) many times during the minute.
    const env = { VIGIL_PLAN_AHEAD_SECONDS: "20", VIGIL_HEARTBEAT_MS: "1000", VIGIL_WORKER_CONCURRENCY: "6" };
    // Started one after another: three processes loading at once on a busy two-core machine can take longer
    // to register than the test helper waits.
    for (let i = 0; i < 3; i++) workers.push(await startWarmWorker(db.url, env));
    progress("workers warm");
    // One transaction: the planners hear of all 200 at once, at commit.
    const ids = await withTransaction(async (tx) => {
      const made: string[] = [];
      for (let i = 0; i < SCHEDULES; i++) made.push((await createSchedule(scheduleInput(i), systemActor("test"), { db: tx })).id);
      return made;
    }, pool);
    progress("schedules created");
    const start: Date = (await pool.query(`SELECT clock_timestamp() AS now`)).rows[0].now;
    await waitFor(
      "the test window to pass on the database clock",
      async () =>
        (
          await pool.query(`SELECT clock_timestamp() - $1::timestamptz >= make_interval(secs => $2::float8 / 1000) AS done`, [
            start,
            DURATION_MS,
          ])
        ).rows[0].done,
      { timeoutMs: DURATION_MS + 30_000, intervalMs: 1000 },
    );
    progress("window passed");
    // Everything due before the cutoff has had ten seconds to finish (or longer, if the machine is slow).
    const cutoff = new Date(start.getTime() + DURATION_MS - 10_000);
    await waitFor(
      "every run due before the cutoff to finish",
      async () =>
        (
          await pool.query(`SELECT count(*)::int AS n FROM runs WHERE planned_at <= $1 AND state IN ('planned', 'queued', 'running')`, [
            cutoff,
          ])
        ).rows[0].n === 0,
      { timeoutMs: 60_000, intervalMs: 500 },
    ).catch(async (err) => {
      const { rows } = await pool.query(
        `SELECT kind, state, wait_reason, count(*)::int AS n FROM runs WHERE planned_at <= $1 GROUP BY 1, 2, 3`,
        [cutoff],
      );
      console.error(
        rows,
        workers.flatMap((w) => w.logs.filter((l) => /"level":(40|50|60)/.test(l)).slice(-5)),
      );
      throw err;
    });
    progress("runs before the cutoff finished");
    const lag = await pool.query(`SELECT max(planner_lag_ms)::int AS lag FROM workers`);
    await Promise.all(workers.map((w) => w.stop()));

    // 1. Exactly one occurrence per (schedule, plannedAt), and no fire of the trigger absent.
    const { rows: occ } = await pool.query(
      `SELECT schedule_id, planned_at, count(*)::int AS n FROM runs WHERE kind = 'scheduled' AND planned_at <= $1
        GROUP BY schedule_id, planned_at`,
      [cutoff],
    );
    expect(occ.filter((r) => r.n !== 1)).toEqual([]);
    const planned = new Map<string, number[]>();
    for (const r of occ) planned.set(r.schedule_id, [...(planned.get(r.schedule_id) ?? []), r.planned_at.getTime()]);
    let expectedTotal = 0;
    for (const id of ids) {
      const s = await getScheduleOrThrow(pool, id);
      const expected = computeFireTimesBetween(s.trigger, s.createdAt, cutoff, { anchor: s.createdAt }).map((f) => f.at.getTime());
      expect((planned.get(id) ?? []).sort((a, b) => a - b)).toEqual(expected);
      expectedTotal += expected.length;
    }
    expect(expectedTotal).toBeGreaterThan(SCHEDULES * (DURATION_MS / 30_000));

    // 2. Exactly one pg-boss job per occurrence, and one handler execution: one attempt, one 'started' event,
    //    one ledger entry, and no "already posted" second run of the handler.
    const { rows: runs } = await pool.query(
      `SELECT r.id, r.state, r.lateness_ms, r.planned_at >= $2 AS steady,
              (SELECT count(*)::int FROM pgboss.job j WHERE j.data->>'runId' = r.id::text) AS jobs,
              (SELECT count(*)::int FROM attempts a WHERE a.run_id = r.id) AS attempts,
              (SELECT count(*)::int FROM run_events e WHERE e.run_id = r.id AND e.type = 'started') AS started,
              (SELECT count(*)::int FROM ledger_entries l WHERE l.run_id = r.id) AS entries,
              (SELECT count(*)::int FROM run_logs g WHERE g.run_id = r.id AND g.message <> 'posted') AS other_logs
         FROM runs r WHERE r.kind = 'scheduled' AND r.planned_at <= $1`,
      [cutoff, start],
    );
    expect(runs).toHaveLength(expectedTotal);
    const wrong = runs.filter(
      (r) => r.state !== "succeeded" || r.jobs !== 1 || r.attempts !== 1 || r.started !== 1 || r.entries !== 1 || r.other_logs !== 0,
    );
    expect(wrong).toEqual([]);
    // No key posted twice anywhere (runs after the cutoff included).
    const { rows: ledger } = await pool.query(
      `SELECT count(*)::int AS n, count(DISTINCT idempotency_key)::int AS keys FROM ledger_entries`,
    );
    expect(ledger[0].n).toBe(ledger[0].keys);

    // Fires before the planners had seen the schedules (the creating transaction) could start late; measure the rest.
    const late = runs
      .filter((r) => r.steady)
      .map((r) => r.lateness_ms as number)
      .sort((a, b) => a - b);
    const pct = (p: number) => late[Math.min(late.length - 1, Math.floor(p * late.length))];
    console.log(
      `planner concurrency: ${runs.length} runs, lateness p50 ${pct(0.5)} ms, p99 ${pct(0.99)} ms, max ${late.at(-1)} ms; max planner lag ${lag.rows[0].lag} ms`,
    );
  });
});
