// Planning at scale: 100,000 schedules — hourly crons spread over the hour, crons bunched at second 0 of
// every minute, intervals (from 5 minutes to an hour) — created at once, then planned by the real planner tick
// (core/runs/plan/plan-tick.ts, the worker's default horizon) called in this process the way the worker calls it
// (the next tick a second after the previous one ended, or at once while planning reports a backlog), no workers
// running the runs. Printed, from the moment the schedules exist: the time of each tick (p50, p95, max), planner lag
// over time (core/runs/plan/plan-lag.ts, never-planned schedules included) with how many schedules are behind now
// and due for planning, the time until every schedule was planned through now and half a horizon ahead, and for
// the bunched seconds how many runs got their job after their due time, and by how much.
//
// Before and after in one sitting: BENCH_PLANNING_BASELINE_DIR names a folder holding another tree's core/ (e.g.
// `git archive <commit> core | tar -x -C /tmp/plan-base`, with node_modules linked in); its planner tick runs the same
// protocol first, on its own fresh database of the same server.
// `npm run bench -- planning` (BENCH_PLANNING_SCHEDULES=100000, BENCH_PLANNING_SECONDS=240 per tree).
import os from "node:os";
import path from "node:path";
import pg from "pg";
import type { PgBoss } from "pg-boss";
import { cloneTemplate, dropDatabase, startTestPostgres } from "../test/postgres-for-tests";
import { startTestBoss } from "../test/run-fixtures";
import { percentile } from "./lib/stats";
import { runBenchWhenMain } from "./lib/main";

const say = (line: string) => process.stdout.write(`[planning.bench] ${line}\n`);
const HORIZON_SECONDS = 120; // VIGIL_PLAN_AHEAD_SECONDS' default
const load = () =>
  os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(" ");

type Tick = (pool: pg.Pool, boss: PgBoss, opts: { horizonSeconds: number; sliceOnly?: boolean }) => Promise<{ planBacklog?: boolean }>;

interface Bunched {
  expected: number;
  onTime: number;
  late: number;
  lateP50: number;
  lateMax: number;
  never: number;
}

interface Figures {
  tree: string;
  ticks: number[];
  /** Full ticks only (a tree with slices also runs slice-only ticks between them while behind). */
  fullTicks: number[];
  caughtUpS: number | null;
  aheadS: number | null;
  /** Bunched fires due before every schedule was first planned through now, and after. */
  bunchedCatchUp: Bunched;
  bunchedSteady: Bunched;
  allLate: number;
  maxLagS: number;
}

export default async function planningBench(): Promise<void> {
  const n = Number(process.env.BENCH_PLANNING_SCHEDULES ?? 100_000);
  const seconds = Number(process.env.BENCH_PLANNING_SECONDS ?? 240);
  const baseDir = process.env.BENCH_PLANNING_BASELINE_DIR;
  // BENCH_PLANNING_STATEMENTS=true: where the database time goes, per tree (pg_stat_statements, top statements).
  const statements = process.env.BENCH_PLANNING_STATEMENTS === "true";
  const server = await startTestPostgres({
    durable: true,
    ...(statements ? { settings: { shared_preload_libraries: "pg_stat_statements" } } : {}),
  });
  const { runPlannerTick } = await import("../core/runs/plan/plan-tick");
  const { closePool } = await import("../core/db/pool");
  const trees: { name: string; tick: Tick }[] = [];
  if (baseDir) {
    const base = await import(path.resolve(baseDir, "core/runs/plan/plan-tick.ts"));
    trees.push({ name: `before (${baseDir})`, tick: base.runPlannerTick as Tick });
  }
  trees.push({ name: "after (this tree)", tick: runPlannerTick });
  say(`machine: ${os.cpus().length} cores, load ${load()}; ${n} schedules, ${seconds} s per tree, horizon ${HORIZON_SECONDS} s`);
  const results: Figures[] = [];
  try {
    for (const t of trees) results.push(await runTree(server.adminUrl, t.name, t.tick, n, seconds, statements));
  } finally {
    await closePool();
    await server.stop();
  }
  say("summary (same sitting):");
  const fmt = (xs: number[]) =>
    `p50 ${percentile(xs, 50).toFixed(0)} ms, p95 ${percentile(xs, 95).toFixed(0)} ms, max ${Math.max(...xs).toFixed(0)} ms`;
  const bunchedText = (b: Bunched) =>
    `${b.expected} fires: on time ${b.onTime}, enqueued late ${b.late} (p50 ${b.lateP50.toFixed(0)} ms, max ${b.lateMax.toFixed(0)} ms), never ${b.never}`;
  for (const r of results) {
    say(`  ${r.tree}:`);
    say(
      `    every tick ${fmt(r.ticks)} (${r.ticks.length}); full ticks ${fmt(r.fullTicks)} (${r.fullTicks.length}); max planner lag ${r.maxLagS.toFixed(0)} s`,
    );
    say(
      `    every schedule planned through now after ${r.caughtUpS === null ? `— (not within ${seconds} s)` : `${r.caughtUpS.toFixed(0)} s`}, ` +
        `half a horizon ahead after ${r.aheadS === null ? `— (not within ${seconds} s)` : `${r.aheadS.toFixed(0)} s`}`,
    );
    say(`    bunched second, while catching up: ${bunchedText(r.bunchedCatchUp)}`);
    say(`    bunched second, once caught up:    ${bunchedText(r.bunchedSteady)}`);
    say(`    all runs enqueued after their due time: ${r.allLate}`);
  }
  say(`load at the end: ${load()}`);
}

async function runTree(adminUrl: string, tree: string, tick: Tick, n: number, seconds: number, statements: boolean): Promise<Figures> {
  const url = await cloneTemplate(adminUrl, "bench_planning");
  process.env.DATABASE_URL = url;
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  const boss = await startTestBoss(url);
  const { measurePlanAhead } = await import("../core/runs/plan/plan-lag");
  try {
    say(`${tree}: load ${load()}`);
    // Nothing runs them: a long starting deadline keeps the misfire sweep (not planning) out of the figures.
    // 40 % hourly crons spread over the hour, 20 % crons bunched at second 0 of every minute, 40 % intervals. Cron
    // triggers are stored as the API stores them, with their DST policy filled in (BENCH_PLANNING_NO_DST=true leaves
    // it out, as this bench did at first: every read of such a row re-validates the cron, which costs the planner).
    const dst = process.env.BENCH_PLANNING_NO_DST === "true" ? "{}" : '{"dst":{"gap":"shift","repeat":"once"}}';
    await pool.query(
      `INSERT INTO schedules (name, handler, starting_deadline_seconds, trigger)
       SELECT 'plan-' || g, 'demo.noop', 3600,
              CASE WHEN g % 5 IN (0, 1) THEN jsonb_build_object('kind', 'cron', 'cron', (g % 60) || ' ' || ((g / 60) % 60) || ' * * * *', 'timezone', 'UTC') || $2::jsonb
                   WHEN g % 5 = 2 THEN jsonb_build_object('kind', 'cron', 'cron', '0 * * * * *', 'timezone', 'UTC') || $2::jsonb
                   ELSE jsonb_build_object('kind', 'interval', 'everySeconds', 300 + (g % 12) * 300) END
         FROM generate_series(1, $1::int) g`,
      [n, dst],
    );
    await pool.query("VACUUM ANALYZE schedules");
    if (statements) {
      await pool.query("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
      await pool.query("SELECT pg_stat_statements_reset()");
    }
    const t0: Date = (await pool.query(`SELECT min(created_at) AS t FROM schedules`)).rows[0].t;
    const ticks: number[] = [];
    const fullTicks: number[] = [];
    let caughtUpS: number | null = null;
    let caughtUpAt: Date | null = null;
    let lastFull = -Infinity;
    let aheadS: number | null = null;
    let maxLagS = 0;
    let window: number[] = [];
    let nextReport = 10;
    const started = performance.now();
    const end = started + seconds * 1000;
    while (performance.now() < end) {
      const s = performance.now();
      // As the worker does (worker/planner.ts): a full tick a second after the last one ended, planning slices in between while a
      // backlog lasts. (A tree without slices ignores sliceOnly and reports no backlog.)
      const sliceOnly = s - lastFull < 1000;
      const r = await tick(pool, boss, { horizonSeconds: HORIZON_SECONDS, sliceOnly });
      const ms = performance.now() - s;
      ticks.push(ms);
      if (!sliceOnly) {
        fullTicks.push(ms);
        lastFull = performance.now();
      }
      window.push(ms);
      const a = await measurePlanAhead(pool, HORIZON_SECONDS);
      const at = (performance.now() - started) / 1000;
      maxLagS = Math.max(maxLagS, a.lagMs / 1000);
      if (caughtUpS === null && a.behind === 0) {
        caughtUpS = at;
        caughtUpAt = (await pool.query(`SELECT clock_timestamp() AS t`)).rows[0].t;
      }
      if (aheadS === null && a.backlog === 0) aheadS = at;
      if (at >= nextReport) {
        say(
          `  +${at.toFixed(0).padStart(3)} s: lag ${(a.lagMs / 1000).toFixed(1)} s, behind now ${a.behind}, due for planning ${a.backlog}; ` +
            `ticks ${window.length}, max ${Math.max(...window).toFixed(0)} ms`,
        );
        window = [];
        nextReport += 10;
      }
      // A second after the tick ends, or at once while planning is behind.
      if (!r.planBacklog) await new Promise((res) => setTimeout(res, 1000));
    }
    // Fires of the bunched schedules (second 0 of each minute) due in the window, but at least 12 s before its end
    // (more than the 10 s a job is sent ahead of its due time, so each had its chance): rows, jobs and lateness.
    const { rows: bunched } = await pool.query(
      `WITH due AS (
         SELECT m FROM generate_series(date_trunc('minute', $1::timestamptz) + interval '1 minute',
                                       clock_timestamp() - interval '12 seconds', interval '1 minute') m
          WHERE m > $1::timestamptz
       ), fires AS (
         SELECT s.id, d.m FROM schedules s CROSS JOIN due d WHERE s.trigger->>'cron' = '0 * * * * *'
       ), joined AS (
         SELECT f.m, r.due_at, r.enqueued_at FROM fires f
           LEFT JOIN runs r ON r.schedule_id = f.id AND r.planned_at = f.m AND r.kind = 'scheduled'
       )
       SELECT m > coalesce($2::timestamptz, 'infinity') AS steady,
              count(*)::int AS expected,
              count(*) FILTER (WHERE enqueued_at <= due_at)::int AS on_time,
              count(*) FILTER (WHERE enqueued_at > due_at)::int AS late,
              coalesce(percentile_disc(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM enqueued_at - due_at) * 1000)
                       FILTER (WHERE enqueued_at > due_at), 0)::float8 AS late_p50,
              coalesce(max(extract(epoch FROM enqueued_at - due_at) * 1000), 0)::float8 AS late_max,
              count(*) FILTER (WHERE enqueued_at IS NULL)::int AS never
         FROM joined GROUP BY 1`,
      [t0, caughtUpAt],
    );
    const bunchedOf = (steady: boolean): Bunched => {
      const b = bunched.find((x) => x.steady === steady);
      if (!b) return { expected: 0, onTime: 0, late: 0, lateP50: 0, lateMax: 0, never: 0 };
      return {
        expected: b.expected,
        onTime: b.on_time,
        late: b.late,
        lateP50: b.late_p50,
        lateMax: Math.max(0, b.late_max),
        never: b.never,
      };
    };
    const { rows: all } = await pool.query(`SELECT count(*)::int AS late FROM runs WHERE planned_at > $1 AND enqueued_at > due_at`, [t0]);
    if (statements) {
      const { rows: top } = await pool.query(
        `SELECT calls::int, total_exec_time::float8 AS ms, rows::int, regexp_replace(left(query, 110), '\\s+', ' ', 'g') AS q
           FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
          ORDER BY total_exec_time DESC LIMIT 8`,
      );
      for (const t of top)
        say(`  db: ${t.ms.toFixed(0).padStart(7)} ms ${String(t.calls).padStart(6)} calls ${String(t.rows).padStart(8)} rows  ${t.q}`);
    }
    const f: Figures = {
      tree,
      ticks,
      fullTicks,
      caughtUpS,
      aheadS,
      maxLagS,
      allLate: all[0].late,
      bunchedCatchUp: bunchedOf(false),
      bunchedSteady: bunchedOf(true),
    };
    return f;
  } finally {
    await boss.stop({ graceful: false, close: true });
    await pool.end();
    await dropDatabase(adminUrl, url).catch(() => undefined);
  }
}

runBenchWhenMain(import.meta.url, "planning.bench", planningBench);
