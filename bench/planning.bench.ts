// Planning at scale (issue 16): 100,000 schedules — hourly crons spread over the hour, crons bunched at second 0 of
// every minute, intervals (from 5 minutes to an hour) — planned by the real planner tick (core/runs/plan/plan-tick.ts,
// the worker's default horizon) called in this process once a second, no workers running the runs. Printed: the
// first plan of everything (time, ticks), then over a steady window the time per tick (p50, p95, max), the planner
// lag (plan-lag.ts) at each tick, and for the bunched seconds how long before their due time they were enqueued.
// `npm run bench -- planning` (BENCH_PLANNING_SCHEDULES=100000, BENCH_PLANNING_SECONDS=150).
import os from "node:os";
import pg from "pg";
import { cloneTemplate, dropDatabase, startTestPostgres } from "../test/postgres-for-tests";
import { startTestBoss } from "../test/run-fixtures";
import { percentile } from "./lib/stats";
import { runBenchWhenMain } from "./lib/main";

const say = (line: string) => process.stdout.write(`[planning.bench] ${line}\n`);
const HORIZON_SECONDS = 120; // VIGIL_PLAN_AHEAD_SECONDS' default

export default async function planningBench(): Promise<void> {
  const n = Number(process.env.BENCH_PLANNING_SCHEDULES ?? 100_000);
  const seconds = Number(process.env.BENCH_PLANNING_SECONDS ?? 150);
  const server = await startTestPostgres({ durable: true });
  const url = await cloneTemplate(server.adminUrl, "bench_planning");
  process.env.DATABASE_URL = url;
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  const boss = await startTestBoss(url);
  const { runPlannerTick } = await import("../core/runs/plan/plan-tick");
  const { measurePlannerLag } = await import("../core/runs/plan/plan-lag");
  const { closePool } = await import("../core/db/pool");
  try {
    say(
      `machine: ${os.cpus().length} cores, load ${os
        .loadavg()
        .map((x) => x.toFixed(1))
        .join(" ")}`,
    );
    // Nothing runs them: a long starting deadline keeps the misfire sweep (not planning) out of the figures.
    // 40 % hourly crons spread over the hour, 20 % crons bunched at second 0 of every minute, 40 % intervals.
    await pool.query(
      `INSERT INTO schedules (name, handler, starting_deadline_seconds, trigger)
       SELECT 'plan-' || g, 'demo.noop', 3600,
              CASE WHEN g % 5 IN (0, 1) THEN jsonb_build_object('kind', 'cron', 'cron', (g % 60) || ' ' || ((g / 60) % 60) || ' * * * *', 'timezone', 'UTC')
                   WHEN g % 5 = 2 THEN jsonb_build_object('kind', 'cron', 'cron', '0 * * * * *', 'timezone', 'UTC')
                   ELSE jsonb_build_object('kind', 'interval', 'everySeconds', 300 + (g % 12) * 300) END
         FROM generate_series(1, $1::int) g`,
      [n],
    );
    await pool.query("VACUUM ANALYZE schedules");
    const t0 = performance.now();
    let ticks = 0;
    for (;;) {
      await runPlannerTick(pool, boss, { horizonSeconds: HORIZON_SECONDS });
      ticks++;
      // Not measurePlannerLag: it reads the least advanced cursor, and a schedule never planned yet has none.
      const { rows: behind } = await pool.query(
        `SELECT count(*)::int AS n FROM schedules WHERE planned_through IS NULL OR planned_through < clock_timestamp()`,
      );
      if (behind[0].n === 0) break;
    }
    say(`first plan of ${n} schedules (${HORIZON_SECONDS} s ahead): ${((performance.now() - t0) / 1000).toFixed(1)} s in ${ticks} ticks`);

    const { rows: f } = await pool.query(`SELECT clock_timestamp() AS t`);
    const from: Date = f[0].t;
    const tickMs: number[] = [];
    const lags: number[] = [];
    const end = performance.now() + seconds * 1000;
    while (performance.now() < end) {
      const s = performance.now();
      await runPlannerTick(pool, boss, { horizonSeconds: HORIZON_SECONDS });
      tickMs.push(performance.now() - s);
      lags.push(await measurePlannerLag(pool));
      await new Promise((r) => setTimeout(r, Math.max(0, 1000 - (performance.now() - s))));
    }
    const fmt = (xs: number[]) =>
      `p50 ${percentile(xs, 50).toFixed(0)} ms, p95 ${percentile(xs, 95).toFixed(0)} ms, max ${Math.max(...xs).toFixed(0)} ms`;
    say(`steady ${seconds} s, one tick a second: tick time ${fmt(tickMs)} (n=${tickMs.length})`);
    say(`planner lag at each tick: ${fmt(lags)}`);
    const { rows } = await pool.query(
      `SELECT count(*)::int AS runs, count(*) FILTER (WHERE extract(second FROM due_at) = 0)::int AS bunched,
              count(*) FILTER (WHERE enqueued_at > due_at)::int AS enqueued_late,
              percentile_disc(0.01) WITHIN GROUP (ORDER BY extract(epoch FROM due_at - enqueued_at)::float8 * 1000) AS lead_p1,
              min(extract(epoch FROM due_at - enqueued_at)::float8 * 1000) AS lead_min
         FROM runs WHERE due_at >= $1 AND due_at <= clock_timestamp()`,
      [from],
    );
    const r = rows[0];
    say(
      `runs due in the window: ${r.runs} (${r.bunched} at second 0 of a minute); enqueued after their due time: ${r.enqueued_late};` +
        ` enqueued ahead of due: p1 ${Math.round(r.lead_p1)} ms, min ${Math.round(r.lead_min)} ms`,
    );
    say(
      `load at the end: ${os
        .loadavg()
        .map((x) => x.toFixed(1))
        .join(" ")}`,
    );
  } finally {
    await boss.stop({ graceful: false, close: true });
    await pool.end();
    await closePool();
    await dropDatabase(server.adminUrl, url).catch(() => undefined);
    await server.stop();
  }
}

runBenchWhenMain(import.meta.url, "planning.bench", planningBench);
