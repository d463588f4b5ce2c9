// Retention at scale. Builds BENCH_RETENTION_RUNS runs of history (default 10,000,000) over 8 back-dated UTC days
// for N schedules (default 1,000), one INSERT … generate_series statement per day, each run with an attempt, 3
// events and 1 log line, loaded like a restore (bench/lib/bulk-load.ts: keys and indexes built after the load,
// triggers off, read models computed once), then measures:
//  (a) expiring one day (the retention pass: day partitions detached and dropped, runs/attempts deleted in batches)
//      against a plain batched DELETE of another day of the same size (5,000 runs at a time: their events, logs,
//      then the runs with their attempts): wall time and WAL volume (pg_current_wal_lsn), no workers running, as ratios;
//  (b) while 2 real workers run the N schedules (each firing once a minute): runs finished per second and start
//      lateness p99 of the runs planned while a retention pass expires a day, against BENCH_RETENTION_WINDOW_S
//      windows just before and just after it without one, as ratios (goal ≤ 1.1×), each window with what the
//      other connections waited on (pg_stat_activity), the machine's CPU and the checkpoints; with
//      BENCH_RETENTION_B_ROUNDS ("0,1,3/1000": pause ratio[/batch size] per round, each round one more day) several
//      pacings are compared on one database;
//  (c) the runs list, a 1-hour timeline, the schedule page and a run page (core/ read functions the API calls)
//      p95 with the full history against a database holding BENCH_RETENTION_SMALL_RUNS (default 100,000) runs:
//      the same schedules firing at the same rate, only the newest hours of it (goal ≤ 1.5×);
//  and the cost of keeping the audit trail forever: BENCH_RETENTION_AUDIT_ROWS (default 10,000,000) hash-chained
//  rows, their size and the time to list a page and verify the chain. Table and index sizes are printed before and
//  after.
// The baseline DELETE stops after BENCH_RETENTION_DELETE_BUDGET_S (default 240) s and is reported as a bound and a
// linear extrapolation (its rows/s and WAL/row per table) when it did not finish.
// A reduced run: BENCH_RETENTION_RUNS=300000 BENCH_RETENTION_SMALL_RUNS=30000 BENCH_RETENTION_AUDIT_ROWS=100000
// BENCH_RETENTION_WINDOW_S=30 npm run bench -- retention
// BENCH_RETENTION_GO_FILE=/path: the measurements start only once that file exists (see waitForGoFile).
import { execSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { cloneTemplate, startTestPostgres } from "../test/postgres-for-tests";
import { fillHistoryDay } from "../test/history-fixtures";
import { percentile } from "./lib/stats";
import { bulkLoad } from "./lib/bulk-load";
import { startWarmWorkers } from "./lib/workers";
import { runBenchWhenMain } from "./lib/main";

const say = (line: string) => process.stdout.write(`[retention.bench] ${line}\n`);
const num = (name: string, def: number) => Number(process.env[name] ?? def);
const DAYS = 8;
const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(" / ");
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

async function createSchedules(url: string, n: number, prefix: string): Promise<string[]> {
  const { createSchedule } = await import("../core/schedules/create-schedule");
  const { systemActor } = await import("../core/auth/roles");
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  const ids: string[] = [];
  try {
    for (let i = 0; i < n; i++) {
      await c.query("BEGIN");
      const s = await createSchedule(
        { name: `${prefix}-${i}`, handler: "demo.noop", trigger: { kind: "cron", cron: `${i % 60} * * * * *`, timezone: "UTC" } },
        systemActor("bench"),
        { db: c },
      );
      await c.query("COMMIT");
      ids.push(s.id);
    }
  } finally {
    await c.end();
  }
  return ids;
}

async function days(c: pg.Client): Promise<string[]> {
  const { rows } = await c.query(`SELECT to_char(current_date - i, 'YYYY-MM-DD') AS d FROM generate_series($1::int, 1, -1) i`, [DAYS]);
  return rows.map((r) => r.d);
}

/** Seconds between two runs of one schedule so that `total` runs fill DAYS days. */
const everyFor = (schedules: number, total: number) => Math.max(1, Math.round((schedules * DAYS * 86_400) / total));

/**
 * Fills history for these schedules, one run every `every` seconds each: DAYS whole days, or with `runs` only the
 * newest `runs` of them (the end of the last day), so a small database has the big one's rate and newest hours and
 * differs only in how much lies behind them. Reads of a recent window (a timeline hour, a page of the newest runs)
 * then return the same rows in both, and their ratio is what the kept history costs.
 */
async function fillHistory(c: pg.Client, ids: string[], every: number, runs?: number): Promise<number> {
  const { ensurePartitionDays } = await import("../core/retention/ensure-partitions");
  let ds = await days(c);
  for (const t of ["run_events", "run_logs"] as const) await ensurePartitionDays(c, t, ds);
  let since: Date | undefined;
  if (runs !== undefined) {
    ds = ds.slice(-1);
    since = new Date(Date.parse(`${ds[0]}T00:00:00Z`) + 86_400_000 - Math.ceil(runs / ids.length) * every * 1000);
  }
  // Loaded like a restore (bench/lib/bulk-load.ts): indexes built after the load, triggers off, read models once.
  const n = await bulkLoad(
    c,
    ["runs", "attempts", "run_events", "run_logs"],
    async () => {
      let total = 0;
      for (const d of ds) {
        const t0 = performance.now();
        total += await fillHistoryDay(c, { day: d, scheduleIds: ids, everySeconds: every, logsPerRun: 1, partitioned: true, since });
        say(
          `  history ${d}: ${total.toLocaleString("en")} runs so far (${((performance.now() - t0) / 1000).toFixed(1)} s for the day, load ${load()})`,
        );
      }
      return total;
    },
    say,
  );
  await c.query(`VACUUM ANALYZE runs, attempts, run_events, run_logs`);
  return n;
}

async function sizes(c: pg.Client, label: string): Promise<void> {
  const { rows } = await c.query(
    `SELECT t AS table,
            (SELECT coalesce(sum(pg_table_size(x)), 0) FROM (SELECT t::regclass AS x UNION ALL SELECT inhrelid::regclass FROM pg_inherits WHERE inhparent = t::regclass) q)::bigint AS heap,
            (SELECT coalesce(sum(pg_indexes_size(x)), 0) FROM (SELECT t::regclass AS x UNION ALL SELECT inhrelid::regclass FROM pg_inherits WHERE inhparent = t::regclass) q)::bigint AS idx,
            (SELECT count(*) FROM pg_inherits WHERE inhparent = t::regclass)::int AS parts
       FROM unnest(ARRAY['runs', 'attempts', 'run_events', 'run_logs', 'run_daily_summaries', 'audit_events', 'once_markers', 'pgboss.job']) t
      WHERE to_regclass(t) IS NOT NULL`,
  );
  say(`table and index sizes ${label}:`);
  for (const r of rows) {
    say(
      `  ${r.table.padEnd(20)} table ${mb(Number(r.heap)).padStart(10)}  indexes ${mb(Number(r.idx)).padStart(10)}${r.parts ? `  (${r.parts} partitions)` : ""}`,
    );
  }
}

async function walBytes<T>(c: pg.Client, fn: () => Promise<T>): Promise<{ ms: number; wal: number; result: T }> {
  await c.query("CHECKPOINT");
  const a = (await c.query(`SELECT pg_current_wal_lsn() AS l`)).rows[0].l;
  const t0 = performance.now();
  const result = await fn();
  const ms = performance.now() - t0;
  const wal = Number((await c.query(`SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1)::bigint AS b`, [a])).rows[0].b);
  return { ms, wal, result };
}

interface DeleteTable {
  rows: number;
  ms: number;
  wal: number;
  /** Rows of this table the whole day holds (what a DELETE run to completion would remove). */
  total: number;
}

/**
 * The baseline: one day's finished runs with everything hanging off them, by plain batched DELETEs as an operator
 * would write them — BATCH runs at a time in planned order (keyset), their events, log lines, then the runs (attempts
 * cascade), each statement its own transaction — for at most `budgetMs`. Each table's rows, time and WAL (per
 * statement, pg_current_wal_lsn) are summed, so a DELETE stopped by the budget still gives its rate and a bound.
 */
async function batchedDelete(c: pg.Client, day: string, budgetMs: number): Promise<{ done: boolean; tables: Record<string, DeleteTable> }> {
  const BATCH = 5000;
  const states = ["succeeded", "failed", "missed", "hollow", "skipped_overlap"];
  const dayRange = `planned_at >= $1::date::timestamptz AND planned_at < $1::date::timestamptz + interval '1 day' AND state = ANY($2::text[])`;
  const count = async (sql: string) => Number((await c.query(sql, [day, states])).rows[0].n);
  const runIdsOfDay = `SELECT id FROM runs WHERE ${dayRange}`;
  const tables: Record<string, DeleteTable> = {
    run_events: { rows: 0, ms: 0, wal: 0, total: await count(`SELECT count(*) AS n FROM run_events WHERE run_id IN (${runIdsOfDay})`) },
    run_logs: { rows: 0, ms: 0, wal: 0, total: await count(`SELECT count(*) AS n FROM run_logs WHERE run_id IN (${runIdsOfDay})`) },
    "runs (+attempts)": { rows: 0, ms: 0, wal: 0, total: await count(`SELECT count(*) AS n FROM runs WHERE ${dayRange}`) },
  };
  const step = async (table: string, sql: string, ids: string[]) => {
    const a = (await c.query(`SELECT pg_current_wal_lsn() AS l`)).rows[0].l;
    const t0 = performance.now();
    const { rowCount } = await c.query(sql, [ids]);
    const t = tables[table]!;
    t.ms += performance.now() - t0;
    t.rows += rowCount ?? 0;
    t.wal += Number((await c.query(`SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1)::bigint AS b`, [a])).rows[0].b);
  };
  const start = performance.now();
  let after: { at: Date; id: string } | null = null;
  for (;;) {
    if (performance.now() - start > budgetMs) return { done: false, tables };
    const batch: { rows: { id: string; planned_at: Date }[] } = await c.query<{ id: string; planned_at: Date }>(
      `SELECT id, planned_at FROM runs WHERE ${dayRange} AND ($3::timestamptz IS NULL OR (planned_at, id) > ($3::timestamptz, $4::uuid))
        ORDER BY planned_at, id LIMIT ${BATCH}`,
      [day, states, after?.at ?? null, after?.id ?? null],
    );
    const rows = batch.rows;
    if (rows.length === 0) return { done: true, tables };
    const ids = rows.map((r) => r.id);
    after = { at: rows[rows.length - 1]!.planned_at, id: rows[rows.length - 1]!.id };
    await step("run_events", `DELETE FROM run_events WHERE run_id = ANY($1::uuid[])`, ids);
    await step("run_logs", `DELETE FROM run_logs WHERE run_id = ANY($1::uuid[])`, ids);
    await step("runs (+attempts)", `DELETE FROM runs WHERE id = ANY($1::uuid[])`, ids);
  }
}

interface ApiDb {
  label: string;
  url: string;
  scheduleId: string;
}

/**
 * The read functions the API calls, on both databases, interleaved (small, big, small, big, …) so that a change of
 * the shared machine's load falls on both alike; p95 and median of BENCH_RETENTION_API_ROUNDS (default 30) each.
 */
async function apiTimes(dbs: ApiDb[]): Promise<{ p95: Record<string, number>[]; median: Record<string, number>[] }> {
  const { listRuns } = await import("../core/runs/read/list-runs");
  const { getTimeline } = await import("../core/runs/read/timeline");
  const { getScheduleView } = await import("../core/schedules/list-schedules");
  const { getRunTrace } = await import("../core/runs/read/get-run");
  const { listDailySummaries } = await import("../core/retention/list-daily-summaries");
  const rounds = num("BENCH_RETENTION_API_ROUNDS", 30);
  // A pool each: some read functions run their queries concurrently.
  const pools = dbs.map((d) => new pg.Pool({ connectionString: d.url, max: 4 }));
  try {
    const cases = await Promise.all(
      dbs.map(async (d, i): Promise<[string, () => Promise<unknown>][]> => {
        const c = pools[i]!;
        const scheduleId = d.scheduleId;
        const { rows } = await c.query(
          `SELECT id, planned_at FROM (SELECT id, planned_at FROM runs WHERE schedule_id = $1 ORDER BY planned_at DESC LIMIT 11) x
            ORDER BY planned_at LIMIT 1`,
          [scheduleId],
        );
        const run = rows[0];
        const to = new Date(run.planned_at);
        const from = new Date(to.getTime() - 3600_000);
        return [
          ["runs list (first page)", () => listRuns(c, { limit: 50 })],
          ["runs list (one schedule)", () => listRuns(c, { scheduleId, limit: 50 })],
          ["runs list (failed)", () => listRuns(c, { states: ["failed"], limit: 50 })],
          ["runs list (failed or missed)", () => listRuns(c, { states: ["failed", "missed"], limit: 50 })],
          ["timeline (1 h, all schedules)", () => getTimeline(c, { from, to })],
          ["schedule page (schedule)", () => getScheduleView(c, scheduleId)],
          ["schedule page (90 days)", () => listDailySummaries(c, scheduleId, 90)],
          ["run page (trace)", () => getRunTrace(c, run.id)],
        ];
      }),
    );
    const p95 = dbs.map(() => ({}) as Record<string, number>);
    const median = dbs.map(() => ({}) as Record<string, number>);
    for (let k = 0; k < cases[0]!.length; k++) {
      const times = dbs.map(() => [] as number[]);
      for (const [i] of dbs.entries()) await cases[i]![k]![1]();
      for (let r = 0; r < rounds; r++) {
        for (const [i] of dbs.entries()) {
          const t0 = performance.now();
          await cases[i]![k]![1]();
          times[i]!.push(performance.now() - t0);
        }
      }
      for (const [i] of dbs.entries()) {
        p95[i]![cases[i]![k]![0]] = percentile(times[i]!, 95);
        median[i]![cases[i]![k]![0]] = percentile(times[i]!, 50);
      }
    }
    for (const [i, d] of dbs.entries()) {
      say(
        `API p95 with ${d.label} (load ${load()}): ${Object.entries(p95[i]!)
          .map(([k, v]) => `${k} ${v.toFixed(1)} ms`)
          .join("; ")}`,
      );
    }
    return { p95, median };
  } finally {
    await Promise.all(pools.map((p) => p.end()));
  }
}

/** Runs planned in [from, to) (and [from2, to2)): finished per second and start lateness p99/p50 (DB clock). */
async function windowFigures(
  c: pg.Client,
  from: Date,
  to: Date,
  from2: Date = to,
  to2: Date = to,
): Promise<{ perSecond: number; p99: number; p50: number; n: number }> {
  const { rows } = await c.query(
    `SELECT extract(epoch FROM started_at - planned_at)::float8 * 1000 AS ms, finished_at IS NOT NULL AS done FROM runs
      WHERE kind = 'scheduled' AND ((planned_at >= $1 AND planned_at < $2) OR (planned_at >= $3 AND planned_at < $4))`,
    [from, to, from2, to2],
  );
  const lat = rows.filter((r) => r.ms !== null).map((r) => r.ms as number);
  const done = rows.filter((r) => r.done).length;
  const seconds = (to.getTime() - from.getTime() + (to2.getTime() - from2.getTime())) / 1000;
  return { perSecond: done / seconds, p99: percentile(lat, 99), p50: percentile(lat, 50), n: rows.length };
}

/** Waits (up to `ms`) until the runs planned in the last 10 s started with a median lateness under 1 s. */
async function waitForOnTime(c: pg.Client, ms: number): Promise<boolean> {
  const deadline = performance.now() + ms;
  while (performance.now() < deadline) {
    const { rows } = await c.query(
      `SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM coalesce(started_at, clock_timestamp()) - planned_at)) AS s, count(*)::int AS n
         FROM runs WHERE kind = 'scheduled' AND planned_at BETWEEN clock_timestamp() - interval '12 seconds' AND clock_timestamp() - interval '2 seconds'`,
    );
    if (rows[0].n > 0 && rows[0].s < 1) return true;
    await new Promise((r) => setTimeout(r, 2000));
  }
  return false;
}

function gitHead(): string {
  try {
    const head = execSync("git rev-parse --short HEAD", { cwd: path.dirname(new URL(import.meta.url).pathname) })
      .toString()
      .trim();
    const dirty = execSync("git status --porcelain -- core worker", { cwd: path.dirname(new URL(import.meta.url).pathname) })
      .toString()
      .trim();
    return `${head}${dirty ? " (with uncommitted changes in core/ or worker/)" : ""}`;
  } catch {
    return "unknown";
  }
}

/** The machine's CPU counters (/proc/stat): busy and total jiffies. */
function cpuTicks(): { busy: number; total: number } {
  try {
    const f = fs.readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number);
    const idle = (f[3] ?? 0) + (f[4] ?? 0);
    const total = f.reduce((a, b) => a + b, 0);
    return { busy: total - idle, total };
  } catch {
    return { busy: 0, total: 0 };
  }
}

interface PgSetting {
  name: string;
  setting: string;
  unit: string | null;
}

/** Waits (at most 5 s) until this session sees every named server setting as `ok` wants it: a reload is asynchronous. */
async function waitForSettings(c: pg.Client, names: string[], ok: (r: PgSetting) => boolean): Promise<void> {
  for (const deadline = performance.now() + 5000; names.length > 0 && performance.now() < deadline;) {
    const { rows } = await c.query<PgSetting>(`SELECT name, setting, unit FROM pg_settings WHERE name = ANY($1::text[])`, [names]);
    if (rows.every(ok)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Samples, every 100 ms until stopped, what the active connections other than the retention pass wait on
 * (pg_stat_activity: wait_event_type:wait_event, "CPU" when none), what the retention connection waits on, the
 * machine's CPU busy share, and the checkpoints and WAL written meanwhile (pg_stat_checkpointer, pg_stat_wal).
 */
async function startDiagnostics(url: string): Promise<{ stop: () => Promise<string> }> {
  const d = new pg.Client({ connectionString: url, application_name: "bench-diagnostics" });
  d.on("error", () => undefined);
  await d.connect();
  const stats = async () =>
    (
      await d.query(
        `SELECT (SELECT num_timed + num_requested FROM pg_stat_checkpointer)::bigint AS ckpt,
                (SELECT num_requested FROM pg_stat_checkpointer)::bigint AS ckpt_req,
                (SELECT wal_bytes FROM pg_stat_wal)::bigint AS wal, (SELECT wal_buffers_full FROM pg_stat_wal)::bigint AS wbf`,
      )
    ).rows[0];
  const s0 = await stats().catch(() => null);
  const c0 = cpuTicks();
  const others = new Map<string, number>();
  const retention = new Map<string, number>();
  let samples = 0;
  let othersActive = 0;
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      // A lock wait names who holds it up (the blocker's application and statement).
      const { rows } = await d.query<{ app: string; w: string }>(
        `SELECT coalesce(a.application_name, '') AS app,
                coalesce(a.wait_event_type || ':' || a.wait_event, 'CPU') ||
                CASE WHEN a.wait_event_type = 'Lock' THEN coalesce(' (behind ' || (
                  SELECT string_agg(coalesce(nullif(b.application_name, ''), 'app?') || ' "' || left(regexp_replace(b.query, '\\s+', ' ', 'g'), 50) || '"', ', ')
                    FROM pg_stat_activity b WHERE b.pid = ANY(pg_blocking_pids(a.pid))) || ')', '') ELSE '' END AS w
           FROM pg_stat_activity a
          WHERE a.state = 'active' AND a.backend_type = 'client backend' AND a.pid <> pg_backend_pid()`,
      );
      samples++;
      for (const r of rows) {
        const m = r.app === "vigil-retention" ? retention : others;
        m.set(r.w, (m.get(r.w) ?? 0) + 1);
        if (r.app !== "vigil-retention") othersActive++;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await loop.catch(() => undefined);
      const s1 = await stats().catch(() => null);
      const c1 = cpuTicks();
      await d.end();
      const top = (m: Map<string, number>) =>
        [...m.entries()]
          .sort((a, b) => b[1] - a[1])
          .slice(0, 8)
          .map(([k, v]) => `${k} ${v}`)
          .join(", ") || "none";
      const cpu = c1.total > c0.total ? ((100 * (c1.busy - c0.busy)) / (c1.total - c0.total)).toFixed(0) : "?";
      const ck =
        s0 && s1
          ? `checkpoints ${Number(s1.ckpt) - Number(s0.ckpt)} (requested ${Number(s1.ckpt_req) - Number(s0.ckpt_req)}), WAL ${mb(Number(s1.wal) - Number(s0.wal))}, wal_buffers_full ${Number(s1.wbf) - Number(s0.wbf)}`
          : "checkpoint stats unavailable";
      return `${samples} samples: other active connections (avg ${(othersActive / Math.max(1, samples)).toFixed(2)}) waiting on: ${top(others)}; retention connection: ${top(retention)}; machine CPU busy ${cpu}%; ${ck}; load ${load()}`;
    },
  };
}

async function dbNow(c: pg.Client): Promise<Date> {
  return (await c.query(`SELECT clock_timestamp() AS t`)).rows[0].t;
}
async function sleepUntil(c: pg.Client, at: Date): Promise<void> {
  for (;;) {
    const left = at.getTime() - (await dbNow(c)).getTime();
    if (left <= 0) return;
    await new Promise((r) => setTimeout(r, Math.min(left, 2000)));
  }
}

/**
 * Why `runs` is not partitioned: the hot path addresses a run by id alone. A lookup and an UPDATE by id on a table
 * partitioned into 40 days (the key must include the day) against the same rows in one table.
 */
async function partitionedLookupCost(c: pg.Client, rows: number): Promise<void> {
  await c.query(`CREATE TABLE bench_runs_plain (id uuid PRIMARY KEY, day date NOT NULL, state text NOT NULL, n int NOT NULL)`);
  await c.query(`CREATE TABLE bench_runs_part (id uuid NOT NULL, day date NOT NULL, state text NOT NULL, n int NOT NULL,
                   PRIMARY KEY (id, day)) PARTITION BY RANGE (day)`);
  for (let i = 0; i < 40; i++) {
    await c.query(
      `CREATE TABLE bench_runs_part_${i} PARTITION OF bench_runs_part FOR VALUES FROM (current_date - ${40 - i}) TO (current_date - ${39 - i})`,
    );
  }
  await c.query(
    `INSERT INTO bench_runs_plain SELECT gen_random_uuid(), current_date - 1 - (g % 40), 'succeeded', 0 FROM generate_series(1, $1::int) g`,
    [rows],
  );
  await c.query(`INSERT INTO bench_runs_part SELECT * FROM bench_runs_plain`);
  await c.query(`VACUUM ANALYZE bench_runs_plain, bench_runs_part`);
  const ids = (await c.query(`SELECT id FROM bench_runs_plain ORDER BY random() LIMIT 2000`)).rows.map((r) => r.id);
  const time = async (sql: string) => {
    const t0 = performance.now();
    for (const id of ids) await c.query({ name: sql.slice(0, 60), text: sql, values: [id] });
    return ((performance.now() - t0) * 1000) / ids.length;
  };
  const out: string[] = [];
  for (const t of ["bench_runs_plain", "bench_runs_part"]) {
    const sel = await time(`SELECT * FROM ${t} WHERE id = $1`);
    const upd = await time(`UPDATE ${t} SET n = n + 1 WHERE id = $1`);
    out.push(
      `${t === "bench_runs_plain" ? "one table" : "40 day partitions"}: SELECT by id ${sel.toFixed(0)} µs, UPDATE by id ${upd.toFixed(0)} µs`,
    );
  }
  say(`runs by id, ${rows.toLocaleString("en")} rows (why runs is not partitioned): ${out.join("; ")}`);
  await c.query(`DROP TABLE bench_runs_plain, bench_runs_part`);
}

/**
 * BENCH_RETENTION_GO_FILE: once the history is built, the measurements wait until this file exists, so the long
 * build can overlap other work on a shared machine and the figures need not.
 */
async function waitForGoFile(file: string | undefined): Promise<void> {
  if (!file || fs.existsSync(file)) return;
  say(`history built; waiting for ${file} to exist before measuring (load ${load()})`);
  while (!fs.existsSync(file)) await new Promise((r) => setTimeout(r, 2000));
  say(`${file} exists: measuring (load ${load()})`);
}

export default async function retentionBench(): Promise<void> {
  const total = num("BENCH_RETENTION_RUNS", 10_000_000);
  const small = num("BENCH_RETENTION_SMALL_RUNS", 100_000);
  const schedules = num("BENCH_RETENTION_SCHEDULES", 1000);
  const windowS = num("BENCH_RETENTION_WINDOW_S", 60);
  const auditRows = num("BENCH_RETENTION_AUDIT_ROWS", 10_000_000);
  const server = await startTestPostgres({ durable: true });
  try {
    say(`machine: ${os.cpus().length} cores, load ${load()}; ${total.toLocaleString("en")} runs of history, ${schedules} schedules`);
    // (c) first, the small database.
    const smallUrl = await cloneTemplate(server.adminUrl, "bench_ret_small");
    const sc = new pg.Client({ connectionString: smallUrl });
    await sc.connect();
    const smallIds = await createSchedules(smallUrl, schedules, "ret");
    const every = everyFor(schedules, total);
    say(`each schedule fires every ${every} s in both databases`);
    say(`small database: ${(await fillHistory(sc, smallIds, every, small)).toLocaleString("en")} runs, the newest of the big one's rate`);
    await sc.end();

    const url = await cloneTemplate(server.adminUrl, "bench_ret_big");
    const c = new pg.Client({ connectionString: url });
    // A connection ended from outside is reported by the statement that fails, not as an unhandled 'error' event.
    c.on("error", (err) => say(`bench connection error: ${err.message}`));
    await c.connect();
    const ids = await createSchedules(url, schedules, "ret");
    const t0 = performance.now();
    const built = await fillHistory(c, ids, every);
    say(`big database: ${built.toLocaleString("en")} runs in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
    await sizes(c, "with the full history");
    await waitForGoFile(process.env.BENCH_RETENTION_GO_FILE);
    const api = await apiTimes([
      { label: `${small.toLocaleString("en")} runs`, url: smallUrl, scheduleId: smallIds[7]! },
      { label: `${built.toLocaleString("en")} runs`, url, scheduleId: ids[7]! },
    ]);
    for (const k of Object.keys(api.p95[1]!)) {
      const [s95, b95, s50, b50] = [api.p95[0]![k]!, api.p95[1]![k]!, api.median[0]![k]!, api.median[1]![k]!];
      const r = b95 / Math.max(0.1, s95);
      say(
        `  (c) ${k}: p95 ×${r.toFixed(2)} (${b95.toFixed(1)} vs ${s95.toFixed(1)} ms), median ×${(b50 / Math.max(0.1, s50)).toFixed(2)} (${b50.toFixed(1)} vs ${s50.toFixed(1)} ms)${r <= 1.5 ? "" : "  ← over the 1.5× goal"}`,
      );
    }

    // (a) expiring one day vs a plain batched DELETE of another day of the same size, no workers.
    const { runRetention } = await import("../core/retention/run-retention");
    const { retentionSettingsFromEnv } = await import("../core/retention/retention-settings");
    const { getEnv } = await import("../core/env");
    const pool = new pg.Pool({ connectionString: url, max: 3 });
    const base = retentionSettingsFromEnv(getEnv());
    const ds = await days(c);
    // Autovacuum off on the history tables during (a): otherwise the vacuum the DELETEs make necessary runs in the
    // middle of the next measurement and its WAL is counted there. It is measured on its own below instead.
    await c
      .query(
        `ALTER TABLE runs SET (autovacuum_enabled = off); ALTER TABLE attempts SET (autovacuum_enabled = off);
       ALTER TABLE run_events SET (autovacuum_enabled = off); ALTER TABLE run_logs SET (autovacuum_enabled = off)`,
      )
      .catch(() => c.query(`ALTER TABLE runs SET (autovacuum_enabled = off); ALTER TABLE attempts SET (autovacuum_enabled = off)`));
    // Today's summaries first (a pass that keeps everything), so the measured pass is the expiry alone.
    const warm = await walBytes(c, () => runRetention(pool, { ...base, runsDays: 0, logsDays: 0 }, { workerId: "bench" }));
    say(
      `daily summaries of ${warm.result!.summaries.days} days (${warm.result!.summaries.rows} rows): ${(warm.ms / 1000).toFixed(2)} s, WAL ${mb(warm.wal)}`,
    );
    const expire = await walBytes(c, () => runRetention(pool, { ...base, runsDays: DAYS - 1, logsDays: DAYS - 1 }, { workerId: "bench" }));
    const dropped = expire.result!.partitionsDropped;
    say(
      `(a) retention pass expiring ${ds[0]}: ${expire.result!.runs.toLocaleString("en")} runs, partitions ${dropped.map((p) => `${p.partition} (${p.rows.toLocaleString("en")} rows)`).join(", ")}: ${(expire.ms / 1000).toFixed(2)} s, WAL ${mb(expire.wal)}`,
    );
    const pausedA = expire.result!.pausedMs;
    const workMs = expire.ms - pausedA;
    say(
      `(a)   pacing (VIGIL_RETENTION_PAUSE_RATIO ${base.pauseRatio}, batch ${base.batchSize}): ${expire.result!.runBatches} batches, paused ${(pausedA / 1000).toFixed(2)} s; the pass's work time (wall minus pauses) ${(workMs / 1000).toFixed(2)} s, wall ${(expire.ms / 1000).toFixed(2)} s`,
    );
    say(
      `(a)   of which: runs+attempts ${expire.result!.stepMs.runs} ms (work ${expire.result!.stepMs.runs - pausedA} ms) (WAL ${mb(expire.result!.stepWalBytes.runs)}), partitions ${expire.result!.stepMs.partitions} ms (WAL ${mb(expire.result!.stepWalBytes.partitions)}), other tables ${expire.result!.stepMs.sideTables} ms`,
    );
    // The baseline on the next day, bounded by a time budget (a full day took over 8 min under load and did not
    // finish): what it removed, at what rate and WAL per row, and the ratio as a bound when it did not finish.
    const budgetS = num("BENCH_RETENTION_DELETE_BUDGET_S", 240);
    await c.query("CHECKPOINT");
    const del = await batchedDelete(c, ds[1]!, budgetS * 1000);
    const children = ["run_events", "run_logs"].map((t) => del.tables[t]!);
    const runsT = del.tables["runs (+attempts)"]!;
    for (const [t, f] of Object.entries(del.tables)) {
      say(
        `(a) batched DELETE of ${ds[1]}, ${t}: ${f.rows.toLocaleString("en")} of ${f.total.toLocaleString("en")} rows in ${(f.ms / 1000).toFixed(1)} s (${Math.round(f.rows / Math.max(0.001, f.ms / 1000)).toLocaleString("en")} rows/s, WAL ${mb(f.wal)}, ${(f.wal / Math.max(1, f.rows)).toFixed(0)} B/row)`,
      );
    }
    const sum = (fs: DeleteTable[], k: "ms" | "wal") => fs.reduce((a, f) => a + f[k], 0);
    // Linear extrapolation of each table to its whole day (rows/s and WAL/row as measured).
    const whole = (fs: DeleteTable[], k: "ms" | "wal") => fs.reduce((a, f) => a + (f.rows > 0 ? (f[k] * f.total) / f.rows : 0), 0);
    const r = expire.result!;
    const ratio = (pass: number, partial: number, full: number) =>
      del.done
        ? `×${(pass / Math.max(1, full)).toFixed(4)}`
        : `≤ ×${(pass / Math.max(1, partial)).toFixed(4)} (bound), ≈ ×${(pass / Math.max(1, full)).toFixed(4)} extrapolated`;
    const all = [...children, runsT];
    say(
      `(a) the DELETE ${del.done ? "finished" : `was stopped after its ${budgetS} s budget: it had removed ${all.reduce((a, f) => a + f.rows, 0).toLocaleString("en")} of ${all.reduce((a, f) => a + f.total, 0).toLocaleString("en")} rows (load ${load()})`}; extrapolated to the whole day: ${(whole(all, "ms") / 1000).toFixed(0)} s, WAL ${mb(whole(all, "wal"))}`,
    );
    say(
      `(a) expire a day / batched DELETE, whole day: time (work, without pauses) ${ratio(workMs, sum(all, "ms"), whole(all, "ms"))}, time (wall, with pauses) ${ratio(expire.ms, sum(all, "ms"), whole(all, "ms"))}, WAL ${ratio(expire.wal, sum(all, "wal"), whole(all, "wal"))}`,
    );
    say(
      `(a)   events and logs (partitions vs DELETE): time ${ratio(r.stepMs.partitions, sum(children, "ms"), whole(children, "ms"))}, WAL ${ratio(r.stepWalBytes.partitions, sum(children, "wal"), whole(children, "wal"))}`,
    );
    say(
      `(a)   runs and attempts (both batched DELETEs): time (work) ${ratio(r.stepMs.runs - r.pausedMs, runsT.ms, whole([runsT], "ms"))}, time (wall) ${ratio(r.stepMs.runs, runsT.ms, whole([runsT], "ms"))}, WAL ${ratio(r.stepWalBytes.runs, runsT.wal, whole([runsT], "wal"))}`,
    );

    const vac = await walBytes(c, () => c.query(`VACUUM runs, attempts, run_events, run_logs`));
    say(
      `(a) the VACUUM the DELETEs leave behind (dead rows of both days' runs and attempts, the baseline's events and logs): ${(vac.ms / 1000).toFixed(2)} s, WAL ${mb(vac.wal)} — a dropped partition leaves none`,
    );
    await c.query(`ALTER TABLE runs RESET (autovacuum_enabled); ALTER TABLE attempts RESET (autovacuum_enabled)`);
    await c
      .query(`ALTER TABLE run_events RESET (autovacuum_enabled); ALTER TABLE run_logs RESET (autovacuum_enabled)`)
      .catch(() => undefined);

    // (b) 2 real workers running the schedules: a window without expiry, then one with a retention pass.
    const workers = await startWarmWorkers(url, num("BENCH_RETENTION_WORKERS", 2), { VIGIL_RETENTION_EVERY_SECONDS: "86400" });
    try {
      say(`(b) code under test: ${gitHead()}`);
      // Rounds (BENCH_RETENTION_B_ROUNDS, e.g. "0,1,0/1000,1/1000": pause ratio[/batch size] each; default one round
      // with the env's settings), each expiring one more day, to compare pacings on one database in one sitting.
      // A round may add options after a third "/", ";"-separated: sc=on|off (the pass's synchronous_commit), wal=N (its
      // WAL bound, MB/s), yield=on|off (the runs step waits for gaps between firings), and server settings by name (wal_compression=pglz, max_wal_size=200MB, …: ALTER SYSTEM and a
      // reload for the round, reset after it), e.g. "1/5000/sc=on;max_wal_size=200MB,1/5000/sc=off;wal_compression=pglz".
      // BENCH_RETENTION_B_ROUNDS_FILE: the rounds are read from this file when (b) begins (when it exists), so a long
      // build can start before they are chosen.
      const roundsFile = process.env.BENCH_RETENTION_B_ROUNDS_FILE;
      const roundsSpec =
        roundsFile && fs.existsSync(roundsFile) ? fs.readFileSync(roundsFile, "utf8").trim() : process.env.BENCH_RETENTION_B_ROUNDS;
      say(`(b) rounds: ${roundsSpec ?? "the env's settings"}`);
      const rounds = (roundsSpec ?? `${base.pauseRatio}/${base.batchSize}`)
        .split(",")
        .slice(0, DAYS - 3)
        .map((x) => {
          const [ratio, batch, extra] = x.split("/");
          const opts = Object.fromEntries(
            (extra ?? "")
              .split(";")
              .filter(Boolean)
              .map((kv) => kv.split("=") as [string, string]),
          );
          const { sc, wal, yield: yieldToRuns, ...server } = opts;
          return {
            settings: {
              ...base,
              pauseRatio: Number(ratio),
              batchSize: Number(batch || base.batchSize),
              synchronousCommit: (sc ?? base.synchronousCommit) as "on" | "off",
              yieldToRuns: (yieldToRuns ?? base.yieldToRuns) as "on" | "off",
              maxWalMbPerSecond: wal === undefined ? base.maxWalMbPerSecond : wal === "auto" ? ("auto" as const) : Number(wal),
            },
            server,
          };
        });
      // The workers start behind (the schedules kept firing while they started): wait until they have caught up, so
      // the first "before" window is not their backlog.
      const caughtUp = await waitForOnTime(c, 300_000);
      say(`(b) workers ${caughtUp ? "caught up" : "still behind after 300 s"} (load ${load()})`);
      for (const [round, { settings, server: serverSettings }] of rounds.entries()) {
        const tag = `[pause ×${settings.pauseRatio}, batch ${settings.batchSize}, max pause ${settings.maxPauseMs} ms, synchronous_commit ${settings.synchronousCommit}, yield ${settings.yieldToRuns}, WAL ≤ ${settings.maxWalMbPerSecond || "∞"} MB/s${Object.entries(
          serverSettings,
        )
          .map(([k, v]) => `, ${k}=${v}`)
          .join("")}]`;
        // What the round's settings were before it: after it they are reset and waited for, so the next round (and its
        // pass's session) starts from the server's own again.
        const { rows: prior } = await c.query<{ name: string; setting: string }>(
          `SELECT name, setting FROM pg_settings WHERE name = ANY($1::text[])`,
          [Object.keys(serverSettings)],
        );
        for (const [k, v] of Object.entries(serverSettings)) await c.query(`ALTER SYSTEM SET ${k} = '${v.replace(/'/g, "''")}'`);
        await c.query(`SELECT pg_reload_conf()`);
        // A reload reaches the sessions asynchronously: wait until this one sees the round's settings.
        const same = (a: string, b: string) => a.replace(/\s/g, "").toLowerCase() === b.replace(/\s/g, "").toLowerCase();
        const pretty = (r: PgSetting) =>
          r.unit === "MB" && Number(r.setting) % 1024 === 0 ? `${Number(r.setting) / 1024}GB` : `${r.setting}${r.unit ?? ""}`;
        await waitForSettings(
          c,
          Object.keys(serverSettings),
          (r) => same(pretty(r), serverSettings[r.name]!) || same(r.setting, serverSettings[r.name]!),
        );
        const { rows: shown } = await c.query(
          `SELECT string_agg(name || '=' || setting || coalesce(unit, ''), ', ' ORDER BY name) AS s FROM pg_settings
            WHERE name IN ('wal_compression', 'max_wal_size', 'checkpoint_completion_target', 'checkpoint_timeout', 'wal_writer_delay', 'wal_buffers', 'shared_buffers')`,
        );
        say(`(b) ${tag} server: ${shown[0].s}`);
        // Windows alternate without / with / without (before the pass, during it, after it), each printed with what the
        // worker connections waited on, the machine's CPU and the checkpoints: a noisy neighbour on the shared machine
        // shows up as a "without" window that is late too.
        const start = new Date(Math.ceil((await dbNow(c)).getTime() / 1000) * 1000 + 20_000);
        const mid = new Date(start.getTime() + windowS * 1000);
        await sleepUntil(c, start);
        const diagBefore = await startDiagnostics(url);
        await sleepUntil(c, mid);
        const dBefore = await diagBefore.stop();
        const t1 = await dbNow(c);
        const diagDuring = await startDiagnostics(url);
        // A step that cannot get its lock in lock_timeout fails the pass and the next pass resumes (README
        // "Retention"); the bench is that next pass, at once, up to 5 times, and says how many it took.
        let pass: Awaited<ReturnType<typeof runRetention>> = null;
        let passes = 0;
        for (;;) {
          passes++;
          try {
            pass = await runRetention(pool, { ...settings, runsDays: DAYS - 3 - round, logsDays: DAYS - 3 - round }, { workerId: "bench" });
            break;
          } catch (err) {
            say(`(b) retention pass ${passes} failed (${(err as Error).message}); the next pass resumes`);
            if (passes >= 5) throw err;
          }
        }
        const t2 = await dbNow(c);
        const dDuring = await diagDuring.stop();
        const diagAfter = await startDiagnostics(url);
        const afterEnd = new Date(t2.getTime() + windowS * 1000);
        await sleepUntil(c, afterEnd);
        const dAfter = await diagAfter.stop();
        await sleepUntil(c, new Date(afterEnd.getTime() + 5000));
        const before = await windowFigures(c, start, mid);
        const during = await windowFigures(c, t1, t2);
        const after = await windowFigures(c, t2, afterEnd);
        const without = await windowFigures(c, start, mid, t2, afterEnd);
        say(
          `(b) ${tag} retention pass during the window (${passes} pass${passes > 1 ? "es" : ""}): ${pass?.runs.toLocaleString("en")} runs of the last pass in ${pass?.runBatches} batches, ${pass?.partitionsDropped.length} partitions, ${((t2.getTime() - t1.getTime()) / 1000).toFixed(2)} s wall, of which ${((pass?.pausedMs ?? 0) / 1000).toFixed(2)} s paused (${((pass?.yieldedMs ?? 0) / 1000).toFixed(2)} s waiting for gaps between firings, before ${pass?.yields ?? 0} batches); runs step WAL ${mb(pass?.stepWalBytes.runs ?? 0)} (${Math.round((pass?.stepWalBytes.runs ?? 0) / Math.max(1, pass?.runs ?? 0))} B/run), bound ${pass?.walBoundBytesPerSecond ? `${mb(pass.walBoundBytesPerSecond)}/s` : "none"}`,
        );
        for (const [label, f, d] of [
          ["before (without)", before, dBefore],
          ["during (with)   ", during, dDuring],
          ["after (without) ", after, dAfter],
        ] as const) {
          say(
            `(b) ${tag} ${label}: ${f.perSecond.toFixed(2)} runs/s finished, lateness p99 ${f.p99.toFixed(0)} ms, p50 ${f.p50.toFixed(0)} ms (n=${f.n})`,
          );
          say(`(b)   ${d}`);
        }
        // Where in the pass the latest starts fell: seconds after it began, against its steps' ends.
        const { rows: worst } = await c.query(
          `SELECT round(extract(epoch FROM planned_at - $1::timestamptz)::numeric, 1) AS at, extract(epoch FROM started_at - planned_at)::float8 * 1000 AS ms
             FROM runs WHERE kind = 'scheduled' AND planned_at >= $1 AND planned_at < $2 AND started_at IS NOT NULL ORDER BY 2 DESC LIMIT 8`,
          [t1, t2],
        );
        const st = pass?.stepMs;
        say(
          `(b) ${tag}   latest starts (s into the pass: ms late): ${worst.map((w) => `${w.at}: ${Math.round(w.ms)}`).join(", ")}; steps end at s ${st ? [st.summaries, st.summaries + st.runs, st.summaries + st.runs + st.partitions].map((x) => (x / 1000).toFixed(1)).join(" / ") : "?"} (summaries / runs / partitions)`,
        );
        say(
          `(b) ${tag} ratios during / (before+after): throughput ×${(during.perSecond / without.perSecond).toFixed(2)}, lateness p99 ×${(during.p99 / Math.max(1, without.p99)).toFixed(2)} (${during.p99.toFixed(0)} vs ${without.p99.toFixed(0)} ms; goal ≤ 1.1×); during / before p99 ×${(during.p99 / Math.max(1, before.p99)).toFixed(2)}, during / after p99 ×${(during.p99 / Math.max(1, after.p99)).toFixed(2)}`,
        );
        for (const k of Object.keys(serverSettings)) await c.query(`ALTER SYSTEM RESET ${k}`);
        await c.query(`SELECT pg_reload_conf()`);
        await waitForSettings(c, Object.keys(serverSettings), (r) => prior.find((p) => p.name === r.name)?.setting === r.setting);
      }
    } finally {
      await Promise.all(workers.map((w) => w.stop()));
    }
    await sizes(c, "after expiring");

    // The audit trail, kept forever: what it costs at this many rows.
    if (auditRows > 0) {
      // Loaded like a restore: the secondary indexes (search trigram, actor, action, target, time) are dropped and
      // built once after the load (one index insert per row per index made 100,000 rows take 60 s under load); the
      // chain trigger stays on, so every row is hashed and chained as in production. The build is in the time.
      const { rows: auditIndexes } = await c.query<{ name: string; def: string }>(
        `SELECT i.indexrelid::regclass::text AS name, pg_get_indexdef(i.indexrelid) AS def FROM pg_index i
          WHERE i.indrelid = 'audit_events'::regclass AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid)`,
      );
      const a0 = performance.now();
      for (const ix of auditIndexes) await c.query(`DROP INDEX ${ix.name}`);
      for (let done = 0; done < auditRows; done += 1_000_000) {
        await c.query(
          `INSERT INTO audit_events (actor_type, actor, action, target_type, target_id, after)
           SELECT 'user', 'ops' || (g % 100) || '@example.com', (ARRAY['schedule.update', 'schedule.pause', 'schedule.resume',
                  'run.cancel', 'schedule.trigger'])[1 + g % 5], 'schedule', md5((g % 5000)::text)::uuid::text,
                  jsonb_build_object('n', g, 'reason', 'change ' || g)
             FROM generate_series($2::int + 1, $2::int + $1::int) g`,
          [Math.min(1_000_000, auditRows - done), done],
        );
        say(
          `  audit rows: ${Math.min(auditRows, done + 1_000_000).toLocaleString("en")} (${((performance.now() - a0) / 1000).toFixed(0)} s, load ${load()})`,
        );
      }
      await c.query(
        `INSERT INTO audit_events (actor_type, actor, action, target_type, target_id) VALUES ('user', 'rare@example.com', 'user.role_change', 'user', 'x')`,
      );
      const i0 = performance.now();
      await c.query(`SET maintenance_work_mem = '1GB'`);
      for (const ix of auditIndexes) await c.query(ix.def);
      await c.query(`RESET maintenance_work_mem`);
      say(`  audit indexes built again: ${auditIndexes.length} in ${((performance.now() - i0) / 1000).toFixed(0)} s`);
      await c.query(`VACUUM ANALYZE audit_events`);
      const insertS = (performance.now() - a0) / 1000;
      // The audit page's reads at this size: p95 of 20 after a warm-up.
      const { listAudit } = await import("../core/audit/list-audit");
      const lists: [string, () => Promise<unknown>][] = [
        ["first page", () => listAudit(c, {})],
        ["by actor", () => listAudit(c, { actor: "ops7@example.com" })],
        ["by a rare action", () => listAudit(c, { action: "user.role_change" })],
        ["by target", () => listAudit(c, { target: "schedule:" + "c4ca4238-a0b9-2382-0dcc-509a6f75849b" })],
        ["search", () => listAudit(c, { q: "change 4242" })],
      ];
      const listTimes: string[] = [];
      for (const [name, fn] of lists) {
        await fn();
        const times: number[] = [];
        for (let i = 0; i < 20; i++) {
          const t0 = performance.now();
          await fn();
          times.push(performance.now() - t0);
        }
        listTimes.push(`${name} ${percentile(times, 95).toFixed(1)} ms`);
      }
      say(`audit list p95 at ${auditRows.toLocaleString("en")} rows (load ${load()}): ${listTimes.join("; ")}`);
      const { rows } = await c.query(`SELECT pg_table_size('audit_events') AS t, pg_indexes_size('audit_events') AS i`);
      const v0 = performance.now();
      const { verifyAudit } = await import("../core/audit/verify-audit");
      const v = await verifyAudit(c);
      const verifyS = (performance.now() - v0) / 1000;
      say(
        `audit kept forever: ${auditRows.toLocaleString("en")} rows inserted in ${insertS.toFixed(1)} s; table ${mb(Number(rows[0].t))}, indexes ${mb(Number(rows[0].i))} (${((Number(rows[0].t) + Number(rows[0].i)) / auditRows) | 0} bytes/row); verify ${verifyS.toFixed(1)} s (ok=${v.ok}, ${v.checked.toLocaleString("en")} rows)`,
      );
    }
    const lookupRows = num("BENCH_RETENTION_LOOKUP_ROWS", Math.min(total, 2_000_000));
    if (lookupRows > 0) await partitionedLookupCost(c, lookupRows);
    await pool.end();
    await c.end();
  } finally {
    await server.stop();
  }
}

runBenchWhenMain(import.meta.url, "retention.bench", () => retentionBench());
