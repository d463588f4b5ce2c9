// What the runs list's and timeline's partial indexes (migration 20261203600000_run_read_indexes) cost the hot
// path: an ordinary run's life as the planner, claim and finish write it (insert planned, then queued, running,
// succeeded, one statement each by id), timed with the two indexes and without them, alternating rounds on the
// same database so the shared machine's load falls on both alike. Also counts the index entries an ordinary
// run leaves (zero expected: neither predicate holds for it). On a table already holding BENCH_INDEX_COST_HISTORY
// runs (default 200,000) so the indexes are not trivially small.
// `npm run bench -- read-index-cost` (BENCH_INDEX_COST_RUNS=2000 runs per round, BENCH_INDEX_COST_ROUNDS=6 each way).
import os from "node:os";
import pg from "pg";
import { cloneTemplate, startTestPostgres } from "../test/postgres-for-tests";
import { fillHistoryDay, insertHistorySchedules } from "../test/history-fixtures";
import { percentile } from "./lib/stats";
import { runBenchWhenMain } from "./lib/main";

const say = (line: string) => process.stdout.write(`[read-index-cost.bench] ${line}\n`);
const num = (name: string, def: number) => Number(process.env[name] ?? def);
const INDEXES = ["runs_state_planned_idx", "runs_long_finished_idx"];

async function oneRound(c: pg.Client, scheduleId: string, n: number, round: number): Promise<number> {
  // One transaction per round: a commit's WAL flush per statement (milliseconds on this shared disk) would bury
  // the index maintenance being measured.
  await c.query("BEGIN");
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const { rows } = await c.query<{ id: string }>({
      name: "plan",
      text: `INSERT INTO runs (schedule_id, kind, planned_at, due_at, idempotency_key, state, handler, timeout_seconds, grace_seconds)
             VALUES ($1, 'scheduled', clock_timestamp(), clock_timestamp(), $2, 'planned', 'demo.noop', 30, 1) RETURNING id`,
      values: [scheduleId, `cost:${round}:${i}`],
    });
    const id = rows[0]!.id;
    await c.query({ name: "queue", text: `UPDATE runs SET state = 'queued', enqueued_at = clock_timestamp() WHERE id = $1`, values: [id] });
    await c.query({
      name: "start",
      text: `UPDATE runs SET state = 'running', started_at = clock_timestamp(), heartbeat_at = clock_timestamp(), lateness_ms = 3 WHERE id = $1`,
      values: [id],
    });
    await c.query({
      name: "finish",
      text: `UPDATE runs SET state = 'succeeded', finished_at = clock_timestamp(), duration_ms = 1, records = 1 WHERE id = $1`,
      values: [id],
    });
  }
  const us = ((performance.now() - t0) * 1000) / n;
  await c.query("COMMIT");
  return us;
}

export default async function readIndexCostBench(): Promise<void> {
  const n = num("BENCH_INDEX_COST_RUNS", 2000);
  const rounds = num("BENCH_INDEX_COST_ROUNDS", 6);
  const history = num("BENCH_INDEX_COST_HISTORY", 200_000);
  const server = await startTestPostgres({ durable: true });
  try {
    const url = await cloneTemplate(server.adminUrl, "bench_index_cost");
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    const ids = await insertHistorySchedules(c, 100, "cost");
    const { rows: d } = await c.query(`SELECT to_char(current_date - 1, 'YYYY-MM-DD') AS d`);
    const { ensurePartitionDays } = await import("../core/retention/ensure-partitions");
    for (const t of ["run_events", "run_logs"] as const) await ensurePartitionDays(c, t, [d[0].d]);
    const every = Math.max(1, Math.round((ids.length * 86_400) / history));
    await fillHistoryDay(c, { day: d[0].d, scheduleIds: ids, everySeconds: every, logsPerRun: 0, partitioned: true });
    await c.query(`VACUUM ANALYZE runs`);
    const defs = (
      await c.query<{ def: string }>(`SELECT pg_get_indexdef(indexrelid) AS def FROM pg_index WHERE indexrelid::regclass::text = ANY($1)`, [
        INDEXES,
      ])
    ).rows.map((r) => r.def);
    const before = (await c.query(`SELECT count(*)::int AS n FROM runs WHERE state NOT IN ('planned', 'queued', 'running', 'succeeded')`))
      .rows[0].n;
    say(
      `machine: ${os.cpus().length} cores, load ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(" / ")}; ${history.toLocaleString("en")} runs of history, ${n} runs per round`,
    );
    const withIx: number[] = [];
    const without: number[] = [];
    for (let r = 0; r < rounds * 2; r++) {
      // A B B A …: a load that drifts during the run favours neither side.
      const on = r % 4 === 0 || r % 4 === 3;
      if (on) for (const def of defs) await c.query(def.replace("CREATE INDEX", "CREATE INDEX IF NOT EXISTS"));
      else for (const ix of INDEXES) await c.query(`DROP INDEX IF EXISTS ${ix}`);
      (on ? withIx : without).push(await oneRound(c, ids[0]!, n, r));
    }
    for (const def of defs) await c.query(def.replace("CREATE INDEX", "CREATE INDEX IF NOT EXISTS"));
    const { rows: entries } = await c.query(
      `SELECT count(*) FILTER (WHERE state NOT IN ('planned', 'queued', 'running', 'succeeded'))::int AS by_state,
              count(*) FILTER (WHERE (finished_at AT TIME ZONE 'UTC') - (planned_at AT TIME ZONE 'UTC') > interval '10 minutes')::int AS long
         FROM runs WHERE idempotency_key LIKE 'cost:%'`,
    );
    say(
      `history rows in runs_state_planned_idx: ${before.toLocaleString("en")}; ordinary runs written here that entered it: ${entries[0].by_state}, runs_long_finished_idx: ${entries[0].long}`,
    );
    const med = (xs: number[]) => percentile(xs, 50);
    const pairs = without.map((w, i) => withIx[i]! / w);
    say(`with / without, round by round: ${pairs.map((x) => `×${x.toFixed(2)}`).join(", ")}`);
    say(
      `µs per run life (insert + 3 updates by id): with the indexes ${withIx.map((x) => x.toFixed(0)).join(", ")} (median ${med(withIx).toFixed(0)}); without ${without.map((x) => x.toFixed(0)).join(", ")} (median ${med(without).toFixed(0)}); ratio ×${(med(withIx) / med(without)).toFixed(3)} (load ${os.loadavg()[0]!.toFixed(1)})`,
    );
    await c.end();
  } finally {
    await server.stop();
  }
}

runBenchWhenMain(import.meta.url, "read-index-cost.bench", () => readIndexCostBench());
