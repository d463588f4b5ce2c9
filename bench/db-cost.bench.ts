// Where a run's database time goes: N no-op runs (20 'allow' schedules, queued together) executed end to end by
// 2 real workers, with pg_stat_statements (planning tracked) on a durable server. Prints runs/s, statements and
// commits per run, execution and planning ms per run, and the statements that cost the most — the breakdown
// behind the execution bench's throughput figure. `npx tsx bench/db-cost.bench.ts [runs=3000]`
import pg from "pg";
import { cloneTemplate, startTestPostgres } from "../test/postgres-for-tests";
import { createRuns, insertSchedule, startTestBoss } from "../test/run-fixtures";
import { waitFor } from "../test/wait-for";
import { runBenchWhenMain } from "./lib/main";
import { startWarmWorkers } from "./lib/workers";

const say = (line: string) => process.stdout.write(`[db-cost.bench] ${line}\n`);
const ms = (v: number) => v.toFixed(2);

export default async function dbCostBench(n = Number(process.argv[2] ?? 3000)): Promise<void> {
  const server = await startTestPostgres({
    durable: true,
    settings: { shared_preload_libraries: "pg_stat_statements", "pg_stat_statements.track_planning": "on" },
  });
  const url = await cloneTemplate(server.adminUrl, "bench_db_cost");
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  const boss = await startTestBoss(url);
  const workers = await startWarmWorkers(url, 2, { VIGIL_WORKER_CONCURRENCY: "8" });
  try {
    await pool.query("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
    await new Promise((r) => setTimeout(r, 3000));
    const schedules = await Promise.all(
      Array.from({ length: 20 }, () => insertSchedule(pool, { handler: "demo.noop", overlapPolicy: "allow" })),
    );
    const commits = async () =>
      Number((await pool.query("SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()")).rows[0].xact_commit);
    await pool.query("SELECT pg_stat_statements_reset()");
    const c0 = await commits();
    const t0 = performance.now();
    const ids = (await Promise.all(schedules.map((s) => createRuns(pool, boss, s, Math.ceil(n / schedules.length))))).flat();
    await waitFor(
      "every run to succeed",
      async () =>
        (await pool.query(`SELECT count(*)::int AS n FROM runs WHERE id = ANY($1::uuid[]) AND state = 'succeeded'`, [ids])).rows[0].n ===
        ids.length,
      { timeoutMs: 600_000, intervalMs: 250 },
    );
    const seconds = (performance.now() - t0) / 1000;
    const c1 = await commits();
    const db = `dbid = (SELECT oid FROM pg_database WHERE datname = current_database())`;
    const { rows: totals } = await pool.query(
      `SELECT sum(calls)::float8 AS calls, sum(total_exec_time)::float8 AS exec, sum(total_plan_time)::float8 AS plan FROM pg_stat_statements WHERE ${db}`,
    );
    const t = totals[0];
    say(
      `${ids.length} no-op runs on 2 workers × 8 threads in ${seconds.toFixed(1)} s: ${(ids.length / seconds).toFixed(0)} runs/s (load includes this bench's polling)`,
    );
    say(
      `per run: ${(t.calls / ids.length).toFixed(1)} statements, ${((c1 - c0) / ids.length).toFixed(1)} commits, execution ${ms(t.exec / ids.length)} ms, planning ${ms(t.plan / ids.length)} ms`,
    );
    const { rows } = await pool.query(
      `SELECT calls, total_exec_time::float8 AS exec, total_plan_time::float8 AS plan, rows,
              left(regexp_replace(query, '\\s+', ' ', 'g'), 90) AS q
         FROM pg_stat_statements WHERE ${db} ORDER BY total_exec_time + total_plan_time DESC LIMIT 10`,
    );
    say("costliest statements (calls, ms per run: execution + planning, query):");
    for (const r of rows) say(`  ${String(r.calls).padStart(6)}  ${ms(r.exec / ids.length)} + ${ms(r.plan / ids.length)}  ${r.q}`);
  } finally {
    await Promise.all(workers.map((w) => w.stop()));
    await boss.stop({ graceful: false, close: true });
    await pool.end();
    await server.stop();
  }
}

runBenchWhenMain(import.meta.url, "db-cost.bench", () => dbCostBench());
