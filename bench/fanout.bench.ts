// Top-of-the-hour fan-out: N schedules of the default policies (overlap 'skip', no group; or, with
// BENCH_FANOUT_GROUPED=true, each also in one of 10 concurrency groups whose limits never bind) with one fire
// each, all at the same second, planned and enqueued by the workers' own planners, run by 2 worker processes ×
// 8 threads with the no-op handler. Printed: due second → last start, start lateness p50/p99, runs/s (due second
// → last outcome), and where the database time went (pg_stat_statements). In the same run, on the same server:
//  - graphile-worker 0.18 (2 processes × concurrency 8, poll 100 ms) draining N no-op jobs all due at one instant,
//    in its default configuration and with its batching options on (local queue, batched completion),
//  - raw pg-boss (2 processes × localConcurrency 8, one job per handler call, its fastest polling) the same.
// Ratios are Vigil / baseline of the drain time (due → last start): ≤ 1.0 means Vigil started them sooner.
// Each N runs BENCH_FANOUT_ROUNDS (3) rounds, the systems' order rotated each round so none always runs first on a
// machine whose load drifts; the summary gives each figure's median over the rounds and the machine load.
// Every system's window (from the moment all its jobs exist to the last outcome) is profiled the same way (statements and commits per run or job; for Vigil also runs per
// claim batch and what each run wrote to `runs` and its indexes, from the WAL).
// `npm run bench -- fanout` (BENCH_FANOUT_N=1000,10000 by default; BENCH_FANOUT_SYSTEMS=vigil,graphile,graphile-batched,boss;
// BENCH_FANOUT_EXPLAIN=true prints EXPLAIN (ANALYZE, BUFFERS) of the claim and outcome statements in each N's first
// round; BENCH_FANOUT_CPU_PROFILE=true runs Vigil's workers under `node --cpu-prof` in each N's last round and prints
// the profile of the measured window: busy time of main and executor threads, its split by origin (Vigil, each
// dependency, Node, native) and the top functions by self time — that round's figures then carry the profiler's
// overhead; BENCH_FANOUT_SYSTEMS=vigil runs Vigil alone, to iterate on its profile faster).
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { PgBoss } from "pg-boss";
import { cloneTemplate, dropDatabase, startTestPostgres } from "../test/postgres-for-tests";
import { waitFor } from "../test/wait-for";
import { percentile } from "./lib/stats";
import { startWarmWorkers } from "./lib/workers";
import { runBenchWhenMain } from "./lib/main";
import { GRAPHILE_BATCHING, graphileWorkerMain, migrateGraphile, startGraphileProcess } from "./lib/graphile";
import { PROFILE_SETTINGS, startProfile } from "./lib/profile";
import { explainHotPath } from "./lib/explain-hot-path";
import { cpuProfileTop, profileClockUs } from "./lib/cpu-profile-top";
import { rawBossWorkerMain } from "./lib/raw-boss";
import { parentPid, treeCpuSeconds } from "./lib/proc-cpu";

const say = (line: string) => process.stdout.write(`[fanout.bench] ${line}\n`);
const WORKERS = 2;
const CONCURRENCY = 8;
const RAW_QUEUE = "bench-raw-fanout";
const GRAPHILE_POLL_MS = 100;
/**
 * How often the bench asks the database whether every run (job) ended. Its count scans the table (16 ms a call at
 * 10,000 runs on a loaded machine: at 100 ms that was ~1 ms of database time per run, competing with the system
 * measured). The figures come from the rows' own timestamps, so a slower poll changes none of them.
 */
const DONE_POLL_MS = 500;

export interface Drain {
  /** Due instant → last start. */
  lastStartMs: number;
  p50: number;
  p99: number;
  /** n / (due instant → last outcome); for graphile-worker and pg-boss, → last start (their no-op ends at once). */
  perSecond: number;
  /** CPU seconds (of one core) per 1,000 runs over the measured window: the PostgreSQL server's and the worker processes'. */
  cpu?: { postgres: number; workers: number };
  /** Statements and commits per run (job) over the window, whole database. */
  perRun?: { statements: number; clientStatements: number; commits: number };
  /** Vigil: runs started per call of the one-statement claim. */
  runsPerBatch?: number;
  /** Vigil: index entries and HOT updates of `runs` per run, from the WAL. */
  runsWrites?: { indexInserts: number; hotUpdates: number; updates: number };
}

/**
 * CPU seconds of the server and of the worker processes from now (the due instant) until the returned function is
 * called (all ended), per 1,000 runs. On a shared machine the drain times move with the load; the CPU a system needs per run moves much less.
 */
function cpuMeter(postgresPid: number, workerPids: number[], n: number): () => { postgres: number; workers: number } {
  const pg0 = treeCpuSeconds([postgresPid]);
  const w0 = treeCpuSeconds(workerPids);
  return () => ({
    postgres: ((treeCpuSeconds([postgresPid]) - pg0) * 1000) / n,
    workers: ((treeCpuSeconds(workerPids) - w0) * 1000) / n,
  });
}

/** Waits until the database clock reaches `at` (the due instant: the CPU window starts there for every system). */
async function untilDbTime(pool: pg.Pool, at: Date): Promise<void> {
  const ms = at.getTime() - (await dbNow(pool)).getTime();
  if (ms > 0) await new Promise((r) => setTimeout(r, ms));
}

async function postmasterPid(adminUrl: string): Promise<number> {
  const c = new pg.Client({ connectionString: adminUrl });
  await c.connect();
  try {
    const { rows } = await c.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE backend_type = 'checkpointer'`);
    const pid = parentPid(rows[0]!.pid);
    if (!pid) throw new Error("could not find the postmaster");
    return pid;
  } finally {
    await c.end();
  }
}

const line = (d: Drain) =>
  `last start ${Math.round(d.lastStartMs)} ms after due, lateness p50 ${Math.round(d.p50)} ms, p99 ${Math.round(d.p99)} ms, ${Math.round(d.perSecond)}/s` +
  (d.cpu ? `; CPU per 1,000 runs: PostgreSQL ${d.cpu.postgres.toFixed(2)} s, workers ${d.cpu.workers.toFixed(2)} s` : "") +
  (d.perRun
    ? `; ${d.perRun.statements.toFixed(2)} statements (${d.perRun.clientStatements.toFixed(2)} from clients), ${d.perRun.commits.toFixed(2)} commits per run`
    : "") +
  (d.runsPerBatch ? `; ${d.runsPerBatch.toFixed(1)} runs per claim` : "") +
  (d.runsWrites
    ? `; runs: ${d.runsWrites.indexInserts.toFixed(1)} index entries, ${d.runsWrites.updates.toFixed(2)} updates (${d.runsWrites.hotUpdates.toFixed(2)} HOT) per run`
    : "");

async function dbNow(pool: pg.Pool): Promise<Date> {
  return (await pool.query(`SELECT clock_timestamp() AS t`)).rows[0].t;
}

/** The workers' warnings and errors since sinceMs, by message (a thread replaced or a run stopped mid-bench shows here). */
function workerWarnings(logs: string[], sinceMs: number): string[] {
  const byMsg = new Map<string, number>();
  for (const l of logs) {
    if (!l.startsWith("{")) continue;
    try {
      const j = JSON.parse(l) as { level?: number; msg?: string; time?: number };
      if ((j.level ?? 0) >= 40 && (j.time ?? 0) >= sinceMs) byMsg.set(String(j.msg), (byMsg.get(String(j.msg)) ?? 0) + 1);
    } catch {
      // not a log line
    }
  }
  return [...byMsg].map(([msg, k]) => `note: the workers logged ${k} × "${msg}"`);
}

/** Vigil: N once-schedules due at one second, planned and enqueued by the workers' planners. */
export async function vigilFanout(
  adminUrl: string,
  n: number,
  grouped: boolean,
  postgresPid?: number,
  explain = false,
  cpuProf = false,
): Promise<Drain> {
  const url = await cloneTemplate(adminUrl, `bench_fanout_vigil_${n}`);
  const pool = new pg.Pool({ connectionString: url, max: 3 });
  const profDir = cpuProf ? fs.mkdtempSync(path.join(os.tmpdir(), "vigil-fanout-cpuprof-")) : null;
  // The profiled window, on the profiles' own clock: the due second until every run ended (as the CPU meter's).
  const profWindow = { fromUs: Infinity, toUs: Infinity };
  const workers = await startWarmWorkers(url, WORKERS, {
    VIGIL_WORKER_CONCURRENCY: String(CONCURRENCY),
    ...(profDir
      ? {
          NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --cpu-prof --cpu-prof-dir=${profDir}`.trim(),
        }
      : {}),
  });
  try {
    // The default policies but a starting deadline of an hour: on a loaded machine the last of 10,000 runs may start
    // later than the default minute, and would then be (rightly) missed instead of measured.
    // Lead time: planning, then enqueueing (from 10 s before due) must be over before the second comes.
    const leadS = 12 + Math.ceil(n / 1000);
    const { rows: t } = await pool.query(`SELECT date_trunc('second', clock_timestamp()) + make_interval(secs => $1) AS at`, [leadS]);
    const at: Date = t[0].at;
    if (grouped) {
      await pool.query(`INSERT INTO concurrency_groups (name, max_running) SELECT 'fan-' || g, $1 FROM generate_series(0, 9) g`, [n]);
    }
    await pool.query(
      `INSERT INTO schedules (name, handler, trigger, overlap_policy, concurrency_group, starting_deadline_seconds)
       SELECT 'fan-' || g, 'demo.noop', jsonb_build_object('kind', 'once', 'at', to_char($1::timestamptz AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')),
              'skip', CASE WHEN $3 THEN 'fan-' || (g % 10) END, 3600
         FROM generate_series(1, $2::int) g`,
      [at, n, grouped],
    );
    if (explain) {
      // Enqueued (a pg-boss job each, state 'queued') from 10 s before the due second: explained on those rows.
      await waitFor(
        "the fan-out's runs to be enqueued",
        async () => (await pool.query(`SELECT count(*)::int AS n FROM runs WHERE state = 'queued'`)).rows[0].n >= Math.min(n, CONCURRENCY),
        { timeoutMs: 120_000, intervalMs: 100 },
      );
      for (const l of await explainHotPath(url, CONCURRENCY)) say(`  ${l}`);
    }
    // The profiled window, as for the baselines (whose jobs are all added before it), starts once every run has
    // its job: planning and enqueueing (from 10 s before the due second) stay outside it, whichever round it is.
    const enqueued = async () => (await pool.query(`SELECT count(*)::int AS n FROM runs WHERE state = 'queued'`)).rows[0].n >= n;
    while (!(await enqueued()) && (await dbNow(pool)).getTime() < at.getTime() - 200) await new Promise((r) => setTimeout(r, 100));
    const profile = await startProfile(pool);
    await untilDbTime(pool, at);
    profWindow.fromUs = profileClockUs();
    const cpu = postgresPid
      ? cpuMeter(
          postgresPid,
          workers.map((w) => w.pid),
          n,
        )
      : null;
    await waitFor(
      "every fan-out run to end",
      async () => {
        const { rows } = await pool.query(`SELECT count(*)::int AS n, count(finished_at)::int AS done FROM runs`);
        return rows[0].n === n && rows[0].done === n;
      },
      { timeoutMs: 600_000, intervalMs: DONE_POLL_MS },
    );
    profWindow.toUs = profileClockUs();
    const used = cpu?.();
    const { rows } = await pool.query(
      `SELECT count(*) FILTER (WHERE state = 'succeeded')::int AS ok, count(*) FILTER (WHERE enqueued_at > planned_at)::int AS enqueued_late,
              extract(epoch FROM max(started_at) - $1)::float8 * 1000 AS last_start_ms,
              extract(epoch FROM max(finished_at) - $1)::float8 * 1000 AS last_finish_ms,
              percentile_disc(0.5) WITHIN GROUP (ORDER BY lateness_ms) AS p50,
              percentile_disc(0.99) WITHIN GROUP (ORDER BY lateness_ms) AS p99
         FROM runs`,
      [at],
    );
    const r = rows[0];
    if (r.ok !== n) {
      const { rows: st } = await pool.query(`SELECT state, count(*)::int AS n FROM runs GROUP BY state`);
      throw new Error(`only ${r.ok} of ${n} fan-out runs succeeded: ${st.map((x) => `${x.state} ${x.n}`).join(", ")}`);
    }
    if (r.enqueued_late > 0) say(`  note: ${r.enqueued_late} runs were enqueued after their due second (planning was still going on)`);
    for (const l of workerWarnings(
      workers.flatMap((w) => w.logs),
      at.getTime(),
    ))
      say(`  ${l}`);
    const prof = await profile?.report(n);
    for (const l of prof?.lines ?? []) say(`  ${l}`);
    return {
      lastStartMs: r.last_start_ms,
      p50: r.p50,
      p99: r.p99,
      perSecond: (n / r.last_finish_ms) * 1000,
      cpu: used,
      perRun: prof?.perRun,
      runsPerBatch: prof?.rowsPerCall(/vigil_claim_free_runs/),
      runsWrites: prof?.runsWrites,
    };
  } finally {
    await Promise.all(workers.map((w) => w.stop()));
    await pool.end();
    await dropDatabase(adminUrl, url).catch(() => undefined);
    if (profDir) {
      // Written as the processes exit; only the samples of the measured window count (not start-up, nor shut-down).
      for (const l of cpuProfileTop(profDir, { window: profWindow, runs: n })) say(`  ${l}`);
      fs.rmSync(profDir, { recursive: true, force: true });
    }
  }
}

/** graphile-worker: N no-op jobs with run_at at one instant (added before it), drained by its worker processes. */
export async function graphileFanout(
  adminUrl: string,
  n: number,
  benchFile: string,
  postgresPid?: number,
  batched = false,
): Promise<Drain> {
  const url = await cloneTemplate(adminUrl, `bench_fanout_graphile_${n}`);
  await migrateGraphile(url);
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  const procs = await Promise.all(
    Array.from({ length: WORKERS }, () =>
      startGraphileProcess(benchFile, url, {
        concurrency: CONCURRENCY,
        pollMs: GRAPHILE_POLL_MS,
        batched,
      }),
    ),
  );
  try {
    const { makeWorkerUtils, Logger } = await import("graphile-worker");
    const utils = await makeWorkerUtils({
      connectionString: url,
      logger: new Logger(() => () => {}),
    });
    const leadS = 3 + Math.ceil(n / 2000);
    const at = new Date(Math.ceil((await dbNow(pool)).getTime() / 1000) * 1000 + leadS * 1000);
    for (let i = 0; i < n; i += 1000) {
      await utils.addJobs(
        Array.from({ length: Math.min(1000, n - i) }, () => ({
          identifier: "noop",
          payload: {},
          runAt: at,
        })),
      );
    }
    await utils.release();
    if ((await dbNow(pool)).getTime() > at.getTime()) throw new Error("adding the graphile-worker jobs took longer than the lead time");
    const profile = await startProfile(pool, { runsWrites: false });
    await untilDbTime(pool, at);
    const cpu = postgresPid
      ? cpuMeter(
          postgresPid,
          procs.map((p) => p.child.pid!),
          n,
        )
      : null;
    await waitFor("graphile-worker to start every job", () => procs.reduce((k, p) => k + p.starts.length, 0) >= n, {
      timeoutMs: 600_000,
      intervalMs: 50,
    });
    const used = cpu?.();
    // Its no-op ends at once, but the completions (batched or not) are part of its cost: the profile waits for them.
    await waitFor(
      "graphile-worker to complete every job",
      async () => (await pool.query(`SELECT count(*)::int AS n FROM graphile_worker._private_jobs`)).rows[0].n === 0,
      { timeoutMs: 120_000, intervalMs: DONE_POLL_MS },
    );
    const prof = await profile?.report(n);
    const lat = procs.flatMap((p) => p.starts).map((ms) => ms - at.getTime());
    const last = Math.max(...lat);
    return {
      lastStartMs: last,
      p50: percentile(lat, 50),
      p99: percentile(lat, 99),
      perSecond: (n / last) * 1000,
      cpu: used,
      perRun: prof?.perRun,
    };
  } finally {
    await Promise.all(procs.map((p) => p.stop()));
    await pool.end();
    await dropDatabase(adminUrl, url).catch(() => undefined);
  }
}

/** Raw pg-boss: N no-op jobs with start_after at one instant, one job per handler call. */
export async function bossFanout(adminUrl: string, n: number, benchFile: string, postgresPid?: number): Promise<Drain> {
  const url = await cloneTemplate(adminUrl, `bench_fanout_boss_${n}`);
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  const boss = new PgBoss({
    connectionString: url,
    max: 2,
    schedule: false,
    supervise: false,
    migrate: false,
  });
  boss.on("error", () => undefined);
  await boss.start();
  await boss.createQueue(RAW_QUEUE, { policy: "standard", retryLimit: 0 });
  const procs = Array.from({ length: WORKERS }, () =>
    spawn(process.execPath, ["--import", "tsx", benchFile, "--raw-worker", `boss|${url}`], { stdio: ["ignore", "pipe", "inherit"] }),
  );
  try {
    await Promise.all(procs.map((p) => new Promise<void>((res) => p.stdout!.once("data", () => res()))));
    const at = new Date(Math.ceil((await dbNow(pool)).getTime() / 1000) * 1000 + (3 + Math.ceil(n / 2000)) * 1000);
    for (let i = 0; i < n; i += 500) {
      await boss.insert(
        RAW_QUEUE,
        Array.from({ length: Math.min(500, n - i) }, () => ({
          data: {},
          startAfter: at,
        })),
      );
    }
    const profile = await startProfile(pool, { runsWrites: false });
    await untilDbTime(pool, at);
    const cpu = postgresPid
      ? cpuMeter(
          postgresPid,
          procs.map((p) => p.pid!),
          n,
        )
      : null;
    await waitFor(
      "pg-boss to complete every job",
      async () =>
        (await pool.query(`SELECT count(*)::int AS n FROM pgboss.job WHERE name = $1 AND state <> 'completed'`, [RAW_QUEUE])).rows[0].n ===
        0,
      { timeoutMs: 600_000, intervalMs: DONE_POLL_MS },
    );
    const used = cpu?.();
    const { rows } = await pool.query(
      `SELECT extract(epoch FROM max(started_on) - $2)::float8 * 1000 AS last_ms,
              extract(epoch FROM max(completed_on) - $2)::float8 * 1000 AS done_ms,
              percentile_disc(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM started_on - $2)::float8 * 1000) AS p50,
              percentile_disc(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM started_on - $2)::float8 * 1000) AS p99
         FROM pgboss.job WHERE name = $1`,
      [RAW_QUEUE, at],
    );
    const r = rows[0];
    const prof = await profile?.report(n);
    return {
      lastStartMs: r.last_ms,
      p50: r.p50,
      p99: r.p99,
      perSecond: (n / r.done_ms) * 1000,
      cpu: used,
      perRun: prof?.perRun,
    };
  } finally {
    for (const p of procs) p.kill("SIGTERM");
    await Promise.all(procs.map((p) => new Promise((r) => (p.exitCode !== null ? r(null) : p.once("exit", r)))));
    await boss.stop({ graceful: false, close: true });
    await pool.end();
    await dropDatabase(adminUrl, url).catch(() => undefined);
  }
}

export async function helperMain(arg: string): Promise<void> {
  if (arg.startsWith("graphile|")) return graphileWorkerMain(arg);
  if (arg.startsWith("boss|")) return rawBossWorkerMain(arg.slice("boss|".length), RAW_QUEUE, CONCURRENCY);
  throw new Error(`unknown helper ${arg}`);
}

const SYSTEM_NAMES: Record<string, string> = {
  vigil: `Vigil (overlap skip; ${WORKERS}×${CONCURRENCY})`,
  graphile: `graphile-worker 0.18 default (${WORKERS}×${CONCURRENCY}, poll ${GRAPHILE_POLL_MS} ms)`,
  "graphile-batched": `graphile-worker 0.18 batched (${WORKERS}×${CONCURRENCY}, local queue ${GRAPHILE_BATCHING.localQueueSize}, completion batch ${GRAPHILE_BATCHING.completeJobBatchDelayMs} ms)`,
  boss: `raw pg-boss (${WORKERS}×${CONCURRENCY}, batchSize 1)`,
};

const load = () =>
  os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(" ");

const median = (xs: number[]) => percentile(xs, 50);

export default async function fanoutBench(): Promise<void> {
  const ns = (process.env.BENCH_FANOUT_N ?? "1000,10000").split(",").map(Number);
  const order = (process.env.BENCH_FANOUT_SYSTEMS ?? "vigil,graphile,graphile-batched,boss").split(",").filter((x) => SYSTEM_NAMES[x]);
  const rounds = Number(process.env.BENCH_FANOUT_ROUNDS ?? 3);
  const grouped = process.env.BENCH_FANOUT_GROUPED === "true";
  const explain = process.env.BENCH_FANOUT_EXPLAIN === "true";
  const cpuProf = process.env.BENCH_FANOUT_CPU_PROFILE === "true";
  const server = await startTestPostgres({
    durable: true,
    settings: PROFILE_SETTINGS,
  });
  const file = new URL(import.meta.url).pathname;
  try {
    const pgPid = await postmasterPid(server.adminUrl);
    say(`machine: ${os.cpus().length} cores, load ${load()}`);
    for (const n of ns) {
      const got: Record<string, Drain[]> = Object.fromEntries(order.map((k) => [k, []]));
      for (let round = 0; round < rounds; round++) {
        say(`N=${n} round ${round + 1} of ${rounds}, load ${load()}`);
        // Rotated each round: no system always runs first (or right after the most expensive one).
        const systems = order.map((_, i) => order[(i + round) % order.length]!);
        for (const sys of systems) {
          let d: Drain;
          if (sys === "vigil")
            d = await vigilFanout(server.adminUrl, n, grouped, pgPid, explain && round === 0, cpuProf && round === rounds - 1);
          else if (sys === "graphile") d = await graphileFanout(server.adminUrl, n, file, pgPid);
          else if (sys === "graphile-batched") d = await graphileFanout(server.adminUrl, n, file, pgPid, true);
          else d = await bossFanout(server.adminUrl, n, file, pgPid);
          got[sys]!.push(d);
          say(`N=${n} ${SYSTEM_NAMES[sys]}${sys === "vigil" && grouped ? " (10 groups)" : ""}: ${line(d)}`);
        }
        const v = got.vigil?.[round];
        for (const base of order.filter((x) => x !== "vigil")) {
          const b = got[base]![round]!;
          if (v)
            say(
              `N=${n} round ${round + 1} Vigil / ${base}: drain time ×${(v.lastStartMs / b.lastStartMs).toFixed(2)}, throughput ×${(v.perSecond / b.perSecond).toFixed(2)}`,
            );
        }
      }
      say(`N=${n} medians over ${rounds} rounds (load now ${load()}):`);
      for (const sys of order) {
        const ds = got[sys]!;
        const m = (f: (d: Drain) => number | undefined) => {
          const xs = ds.map(f).filter((x): x is number => x !== undefined);
          return xs.length ? median(xs) : undefined;
        };
        const cpu = m((d) => d.cpu?.postgres);
        const med: Drain = {
          lastStartMs: m((d) => d.lastStartMs)!,
          p50: m((d) => d.p50)!,
          p99: m((d) => d.p99)!,
          perSecond: m((d) => d.perSecond)!,
          cpu: cpu === undefined ? undefined : { postgres: cpu, workers: m((d) => d.cpu?.workers)! },
          perRun:
            m((d) => d.perRun?.statements) === undefined
              ? undefined
              : {
                  statements: m((d) => d.perRun?.statements)!,
                  clientStatements: m((d) => d.perRun?.clientStatements)!,
                  commits: m((d) => d.perRun?.commits)!,
                },
          runsPerBatch: m((d) => d.runsPerBatch),
          runsWrites:
            m((d) => d.runsWrites?.indexInserts) === undefined
              ? undefined
              : {
                  indexInserts: m((d) => d.runsWrites?.indexInserts)!,
                  updates: m((d) => d.runsWrites?.updates)!,
                  hotUpdates: m((d) => d.runsWrites?.hotUpdates)!,
                },
        };
        say(`  ${SYSTEM_NAMES[sys]}: ${line(med)}`);
      }
      if (got.vigil?.length) {
        for (const base of order.filter((x) => x !== "vigil")) {
          const ratio = (f: (d: Drain) => number) => median(got.vigil!.map((v, i) => f(v) / f(got[base]![i]!)));
          // The goals are against graphile-worker (the stronger configuration); raw pg-boss is the floor Vigil builds on.
          const goal = (g: string) => (base.startsWith("graphile") ? ` (goal ${g})` : "");
          say(
            `  Vigil / ${base}, median of the rounds' ratios: drain time ×${ratio((d) => d.lastStartMs).toFixed(2)}${goal("≤ 1.0")}, ` +
              `throughput ×${ratio((d) => d.perSecond).toFixed(2)}${goal("≥ 1.0")}`,
          );
        }
      }
    }
    say(`load at the end: ${load()}`);
  } finally {
    await server.stop();
  }
}

runBenchWhenMain(import.meta.url, "fanout.bench", fanoutBench, helperMain);
