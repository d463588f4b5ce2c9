// Start lateness (started_at − planned_at, both on the database clock), end to end through the real
// planner, pg-boss and dispatcher in real worker processes:
//  1. steady: N schedules (default 1,000) each firing once a minute at different seconds (~17 fires/s),
//     measured over at least a minute. Target p50 ≤ 20 ms, p99 ≤ 100 ms.
//     Baseline in the same run: the same fire pattern as raw pg-boss jobs (startAfter = fire instant)
//     taken by pg-boss work() with its default polling (2 s) and batches of 50, measured as started_on − start_after.
//  2. burst: N one-off schedules all due at the same second; time until the last one started.
// `npx tsx bench/lateness.bench.ts [schedules=1000] [windowSeconds=65] [workers=2]`
import { spawn } from "node:child_process";
import os from "node:os";
import pg from "pg";
import { PgBoss } from "pg-boss";
import { cloneTemplate, startTestPostgres } from "../test/postgres-for-tests";
import { waitFor } from "../test/wait-for";
import { latencySummary as summary, percentile } from "./lib/stats";
import { startWarmWorkers as startWorkers } from "./lib/workers";
import { runBenchWhenMain } from "./lib/main";

const say = (line: string) => process.stdout.write(`[lateness.bench] ${line}\n`);

/**
 * The bench's own pool. An idle client's error (the server stopping while the pool is still open, e.g. after a
 * worker's stop failed before the pool was ended) is not an unhandled 'error' event that kills the process before
 * the real error is printed.
 */
function benchPool(url: string): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  pool.on("error", () => undefined);
  return pool;
}
const RAW_QUEUE = "bench-raw-lateness";

async function dbNowMs(pool: pg.Pool): Promise<number> {
  return (await pool.query(`SELECT extract(epoch FROM clock_timestamp())::float8 * 1000 AS ms`)).rows[0].ms;
}
async function sleepUntilDb(pool: pg.Pool, atMs: number): Promise<void> {
  for (;;) {
    const left = atMs - (await dbNowMs(pool));
    if (left <= 0) return;
    await new Promise((r) => setTimeout(r, Math.min(left, 5000)));
  }
}

async function createSchedules(url: string, n: number, trigger: (i: number) => unknown, prefix: string): Promise<void> {
  const { createSchedule } = await import("../core/schedules/create-schedule");
  const { systemActor } = await import("../core/auth/roles");
  const actor = systemActor("bench");
  const clients = await Promise.all(
    Array.from({ length: 4 }, async () => {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      return c;
    }),
  );
  try {
    await Promise.all(
      clients.map(async (c, k) => {
        for (let i = k; i < n; i += clients.length) {
          await c.query("BEGIN");
          await createSchedule({ name: `${prefix}-${i}`, handler: "demo.noop", trigger: trigger(i) }, actor, { db: c });
          await c.query("COMMIT");
        }
      }),
    );
  } finally {
    await Promise.all(clients.map((c) => c.end()));
  }
}

async function steady(adminUrl: string, n: number, windowS: number, workerCount: number): Promise<number[]> {
  const url = await cloneTemplate(adminUrl, "bench_lateness");
  await createSchedules(url, n, (i) => ({ kind: "cron", cron: `${i % 60} * * * * *`, timezone: "UTC" }), "lat");
  const pool = benchPool(url);
  const workers = await startWorkers(url, workerCount);
  try {
    // Measure whole seconds, starting once planning and enqueueing have settled.
    const from = Math.ceil((await dbNowMs(pool)) / 1000) * 1000 + 15_000;
    const to = from + windowS * 1000;
    await sleepUntilDb(pool, to + 3000);
    const { rows } = await pool.query(
      `SELECT extract(epoch FROM started_at - planned_at)::float8 * 1000 AS ms, state FROM runs
        WHERE kind = 'scheduled' AND planned_at >= to_timestamp($1 / 1000.0) AND planned_at < to_timestamp($2 / 1000.0)`,
      [from, to],
    );
    const lat = rows.filter((r) => r.ms !== null).map((r) => r.ms as number);
    const notStarted = rows.length - lat.length;
    const parts = await pool.query(
      `SELECT extract(epoch FROM j.started_on - j.start_after)::float8 * 1000 AS fetch_ms,
              extract(epoch FROM r.started_at - j.started_on)::float8 * 1000 AS claim_ms,
              extract(epoch FROM r.planned_at)::float8 * 1000 - $1 AS at_ms, r.worker_id,
              extract(epoch FROM r.started_at - r.planned_at)::float8 * 1000 AS ms
         FROM runs r JOIN pgboss.job j ON (j.name = 'vigil-run' OR j.name LIKE 'vigil-run.%') AND (j.data->>'runId')::uuid = r.id AND (j.data->>'attempt')::int = 1
        WHERE r.kind = 'scheduled' AND r.planned_at >= to_timestamp($1 / 1000.0) AND r.planned_at < to_timestamp($2 / 1000.0) AND r.started_at IS NOT NULL`,
      [from, to],
    );
    say(`  of which due → fetched by pg-boss: ${summary(parts.rows.map((r) => r.fetch_ms))}`);
    say(`  of which fetched → started (claim): ${summary(parts.rows.map((r) => r.claim_ms))}`);
    if (process.env.BENCH_LATENESS_DETAIL) {
      for (const r of parts.rows.filter((r) => r.ms > 100).sort((a, b) => a.at_ms - b.at_ms)) {
        say(
          `    late: +${(r.at_ms / 1000).toFixed(3)} s ${r.ms.toFixed(0)} ms (fetch ${r.fetch_ms.toFixed(0)}, claim ${r.claim_ms.toFixed(0)}) worker ${String(r.worker_id).slice(0, 8)}`,
        );
      }
    }
    say(`steady, ${n} schedules × 1/min (${(n / 60).toFixed(1)} fires/s), ${workerCount} workers, ${windowS} s window:`);
    say(`  Vigil lateness ${summary(lat)}; not started by the end: ${notStarted}; expected fires ${Math.round((n * windowS) / 60)}`);
    say(`  target p50 ≤ 20 ms, p99 ≤ 100 ms: ${percentile(lat, 50) <= 20 && percentile(lat, 99) <= 100 ? "OK" : "MISSED"}`);
    const late = lat.filter((x) => x > 100).length;
    say(`  runs later than 100 ms: ${late} (${((late / Math.max(1, lat.length)) * 100).toFixed(2)} %)`);
    return lat;
  } finally {
    await Promise.all(workers.map((w) => w.stop()));
    await pool.end();
  }
}

/** Baseline: the same fire pattern as raw pg-boss jobs, worked with pg-boss's default polling. */
async function rawBaseline(adminUrl: string, n: number, seconds: number, workerCount: number): Promise<number[]> {
  const url = await cloneTemplate(adminUrl, "bench_lateness_raw");
  const pool = benchPool(url);
  const boss = new PgBoss({ connectionString: url, max: 2, schedule: false, supervise: false });
  boss.on("error", () => undefined);
  await boss.start();
  await boss.createQueue(RAW_QUEUE, { policy: "standard", retryLimit: 0 });
  const procs = Array.from({ length: workerCount }, () =>
    spawn(process.execPath, ["--import", "tsx", new URL(import.meta.url).pathname, "--raw-worker", url], {
      stdio: ["ignore", "pipe", "inherit"],
    }),
  );
  try {
    await Promise.all(procs.map((p) => new Promise<void>((res) => p.stdout!.once("data", () => res()))));
    const from = Math.ceil((await dbNowMs(pool)) / 1000) * 1000 + 5000;
    const jobs = [];
    for (let s = 0; s < seconds; s++) {
      for (let i = 0; i < n; i++) if (i % 60 === s % 60) jobs.push({ data: {}, startAfter: new Date(from + s * 1000) });
    }
    for (let i = 0; i < jobs.length; i += 500) await boss.insert(RAW_QUEUE, jobs.slice(i, i + 500));
    await sleepUntilDb(pool, from + seconds * 1000 + 5000);
    const { rows } = await pool.query(
      `SELECT extract(epoch FROM started_on - start_after)::float8 * 1000 AS ms FROM pgboss.job WHERE name = $1 AND started_on IS NOT NULL`,
      [RAW_QUEUE],
    );
    const lat = rows.map((r) => r.ms as number);
    say(`  raw pg-boss work() (default 2 s polling, batches of 50), same pattern for ${seconds} s: lateness ${summary(lat)}`);
    return lat;
  } finally {
    for (const p of procs) p.kill("SIGTERM");
    await Promise.all(procs.map((p) => new Promise((r) => (p.exitCode !== null ? r(null) : p.once("exit", r)))));
    await boss.stop({ graceful: false, close: true });
    await pool.end();
  }
}

async function rawWorker(url: string): Promise<void> {
  const boss = new PgBoss({ connectionString: url, max: 4, schedule: false, supervise: false, migrate: false });
  boss.on("error", () => undefined);
  await boss.start();
  // Batches large enough that throughput never limits it: what remains is pg-boss's polling delay.
  await boss.work(RAW_QUEUE, { batchSize: 50, localConcurrency: 2 }, async () => undefined);
  process.stdout.write("ready\n");
  process.on("SIGTERM", () => void boss.stop({ graceful: false, close: true }).finally(() => process.exit(0)));
}

async function burst(adminUrl: string, n: number, workerCount: number): Promise<void> {
  const url = await cloneTemplate(adminUrl, "bench_burst");
  const pool = benchPool(url);
  // Far enough ahead to create the schedules and start the workers first.
  const at = Math.ceil((await dbNowMs(pool)) / 1000) * 1000 + 150_000;
  await createSchedules(url, n, () => ({ kind: "once", at: new Date(at).toISOString() }), "burst");
  const workers = await startWorkers(url, workerCount);
  try {
    if ((await dbNowMs(pool)) > at - 15_000) say("  (setup took too long: the burst was due before the workers were ready)");
    await sleepUntilDb(pool, at);
    await waitFor(
      "every burst run to start",
      async () => (await pool.query(`SELECT count(*)::int AS n FROM runs WHERE started_at IS NOT NULL`)).rows[0].n >= n,
      { timeoutMs: 120_000, intervalMs: 200 },
    ).catch(() => undefined);
    const { rows } = await pool.query(
      `SELECT extract(epoch FROM started_at - planned_at)::float8 * 1000 AS ms FROM runs WHERE started_at IS NOT NULL`,
    );
    const lat = rows.map((r) => r.ms as number);
    say(`burst, ${n} one-off schedules due at the same second, ${workerCount} workers:`);
    say(`  started ${lat.length} of ${n}; last started ${Math.max(...lat).toFixed(0)} ms after the due second; lateness ${summary(lat)}`);
  } finally {
    await Promise.all(workers.map((w) => w.stop()));
    await pool.end();
  }
}

export default async function latenessBench(
  schedules = Number(process.argv[2] ?? 1000),
  windowS = Number(process.argv[3] ?? 65),
  workerCount = Number(process.argv[4] ?? 2),
): Promise<void> {
  const server = await startTestPostgres({ durable: true });
  try {
    say(
      `machine: ${os.cpus().length} cores, load ${os
        .loadavg()
        .map((x) => x.toFixed(1))
        .join(" ")}`,
    );
    const vigil = await steady(server.adminUrl, schedules, windowS, workerCount);
    if (process.env.BENCH_ONLY_STEADY) return;
    const raw = await rawBaseline(server.adminUrl, schedules, 30, workerCount);
    say(
      `  raw pg-boss p50 / Vigil p50: ×${(percentile(raw, 50) / Math.max(1, percentile(vigil, 50))).toFixed(1)} (how many times later pg-boss's own polling starts)`,
    );
    await burst(server.adminUrl, schedules, workerCount);
  } finally {
    await server.stop();
  }
}

runBenchWhenMain(import.meta.url, "lateness.bench", () => latenessBench(), rawWorker);
