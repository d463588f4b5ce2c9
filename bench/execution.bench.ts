// Execution engine figures, each against a target and, for throughput, against a baseline
// measured in the same run on the same database:
//  1. full-path throughput of no-op runs (queued occurrence → pg-boss job → claim → isolated thread →
//     outcome recorded) on 2 worker processes, vs raw pg-boss send+work of no-op jobs (one job per
//     handler call) on 2 processes with the same concurrency. Target ≥ 1.0× raw.
//  2. cancel-to-dead latency for demo.hang and demo.cpu (cancel requested → thread terminated, both on
//     the database clock), grace 0 and grace 2 s. Target p99 ≤ 1 s with grace 0, ≤ grace + 1 s otherwise.
//  3. zombie detection after SIGKILL with the default heartbeat (2 s) and threshold (8 s). Target ≤ 15 s.
// `npx tsx bench/execution.bench.ts [runs=3000] [rounds=3] [cancels=6] [kills=3]`
import { spawn } from "node:child_process";
import pg from "pg";
import { PgBoss } from "pg-boss";
import { rawBossWorkerMain } from "./lib/raw-boss";
import { RUN_QUEUE_PREFIX } from "../core/queue/boss";
import { cloneTemplate, startTestPostgres } from "../test/postgres-for-tests";
import type { TestWorker } from "../test/worker-process";
import { createRuns, insertSchedule, startTestBoss } from "../test/run-fixtures";
import { waitFor } from "../test/wait-for";
import { median, percentile } from "./lib/stats";
import { startWarmWorkers } from "./lib/workers";
import { runBenchWhenMain } from "./lib/main";

const say = (line: string) => process.stdout.write(`[execution.bench] ${line}\n`);
const RAW_QUEUE = "bench-raw-noop";
const CONCURRENCY = 8;
const WORKERS = 2;

const fmt = (ms: number) => `${Math.round(ms)} ms`;

async function startWorkers(url: string, n: number, env: Record<string, string> = {}): Promise<TestWorker[]> {
  const ws = await startWarmWorkers(url, n, { VIGIL_WORKER_CONCURRENCY: String(CONCURRENCY), ...env });
  // Let every thread of the pools warm up before measuring.
  await new Promise((r) => setTimeout(r, 3000));
  return ws;
}

/**
 * Vigil: n no-op runs due together; runs/s from the due instant to the last recorded outcome. Like the
 * baseline's jobs, they are all created (runs queued, jobs inserted 500 at a time) before the instant they
 * are due, so creating them is not part of the measured window.
 */
async function vigilThroughput(pool: pg.Pool, boss: PgBoss, n: number): Promise<number> {
  const schedules = await Promise.all(
    Array.from({ length: 20 }, () => insertSchedule(pool, { handler: "demo.noop", overlapPolicy: "allow" })),
  );
  const { rows: t } = await pool.query(`SELECT date_trunc('milliseconds', clock_timestamp() + interval '3 seconds') AS at`);
  const at: Date = t[0].at;
  const ids: string[] = [];
  for (const s of schedules) ids.push(...(await createRuns(pool, boss, s, Math.ceil(n / schedules.length), { at })));
  const { rows: late } = await pool.query(`SELECT clock_timestamp() > $1 AS late`, [at]);
  if (late[0].late) throw new Error("creating the runs took longer than the lead time: the measured window would include it");
  // Polled by schedule (20 ids), as cheap as the baseline's poll: sending the n run ids five times a second
  // cost the database and this process more than a few per cent of the machine the runs compete for.
  await waitFor(
    "every no-op run to finish",
    async () =>
      (await pool.query(`SELECT count(*)::int AS n FROM runs WHERE schedule_id = ANY($1::uuid[]) AND finished_at IS NULL`, [schedules]))
        .rows[0].n === 0,
    { timeoutMs: 600_000, intervalMs: 200 },
  );
  const { rows } = await pool.query(
    `SELECT count(*)::int AS n, count(*) FILTER (WHERE state = 'succeeded')::int AS ok,
            extract(epoch FROM max(finished_at) - min(due_at))::float8 * 1000 AS span_ms
       FROM runs WHERE id = ANY($1::uuid[])`,
    [ids],
  );
  if (rows[0].ok !== rows[0].n) throw new Error(`only ${rows[0].ok} of ${rows[0].n} no-op runs succeeded`);
  return (rows[0].n / rows[0].span_ms) * 1000;
}

/** Raw pg-boss: n no-op jobs available together; jobs/s from availability to the last completion. */
async function rawThroughput(url: string, pool: pg.Pool, boss: PgBoss, n: number): Promise<number> {
  await boss.createQueue(RAW_QUEUE, { policy: "standard", retryLimit: 0 }).catch(() => undefined);
  const procs = Array.from({ length: WORKERS }, () =>
    spawn(process.execPath, ["--import", "tsx", new URL(import.meta.url).pathname, "--raw-worker", url], {
      stdio: ["ignore", "pipe", "inherit"],
    }),
  );
  try {
    await Promise.all(
      procs.map(
        (p) =>
          new Promise<void>((res, rej) => {
            p.stdout!.once("data", () => res());
            p.once("exit", (code) => rej(new Error(`a raw pg-boss worker exited (${code}) before it was ready`)));
          }),
      ),
    );
    const { rows: t } = await pool.query(`SELECT clock_timestamp() + interval '2 seconds' AS at`);
    const startAfter: Date = t[0].at;
    for (let i = 0; i < n; i += 500) {
      await boss.insert(
        RAW_QUEUE,
        Array.from({ length: Math.min(500, n - i) }, () => ({ data: {}, startAfter })),
      );
    }
    await waitFor(
      "every raw job to complete",
      async () =>
        (await pool.query(`SELECT count(*)::int AS n FROM pgboss.job WHERE name = $1 AND state <> 'completed'`, [RAW_QUEUE])).rows[0].n ===
        0,
      { timeoutMs: 600_000, intervalMs: 200 },
    );
    const { rows } = await pool.query(
      `SELECT count(*)::int AS n, extract(epoch FROM max(completed_on) - $2::timestamptz)::float8 * 1000 AS span_ms FROM pgboss.job WHERE name = $1`,
      [RAW_QUEUE, startAfter],
    );
    await pool.query(`DELETE FROM pgboss.job WHERE name = $1`, [RAW_QUEUE]);
    return (rows[0].n / rows[0].span_ms) * 1000;
  } finally {
    for (const p of procs) p.kill("SIGTERM");
    await Promise.all(procs.map((p) => new Promise((r) => (p.exitCode !== null ? r(null) : p.once("exit", r)))));
  }
}

// The baseline's worker process (bench/lib/raw-boss.ts): pg-boss at its fastest settings, same concurrency.
const rawWorker = (url: string) => rawBossWorkerMain(url, RAW_QUEUE, CONCURRENCY);

async function cancelLatencies(pool: pg.Pool, boss: PgBoss, reps: number): Promise<void> {
  const { cancelRun } = await import("../core/runs/operate/cancel-run");
  const { systemActor } = await import("../core/auth/roles");
  for (const handler of ["demo.hang", "demo.cpu"]) {
    for (const grace of [0, 2]) {
      const s = await insertSchedule(pool, { handler, timeoutSeconds: 300, graceSeconds: grace });
      const lat: number[] = [];
      for (let i = 0; i < reps; i++) {
        const [id] = await createRuns(pool, boss, s, 1);
        await waitFor(
          "the run to start",
          async () => (await pool.query(`SELECT state FROM runs WHERE id = $1`, [id])).rows[0].state === "running",
          { timeoutMs: 60_000 },
        );
        await cancelRun(id!, systemActor("bench"), "cancel-to-dead bench");
        const killed = await waitFor(
          "the thread to be killed",
          async () =>
            (
              await pool.query(
                `SELECT extract(epoch FROM k.at - c.at)::float8 * 1000 AS ms FROM run_events k, run_events c
                  WHERE k.run_id = $1 AND k.type = 'killed' AND c.run_id = $1 AND c.type = 'cancel_requested'`,
                [id],
              )
            ).rows[0],
          { timeoutMs: 60_000 },
        );
        lat.push(killed.ms);
        await waitFor(
          "the run to end cancelled",
          async () => (await pool.query(`SELECT state FROM runs WHERE id = $1`, [id])).rows[0].state === "cancelled",
        );
      }
      const target = grace === 0 ? 1000 : grace * 1000 + 1000;
      say(
        `cancel-to-dead ${handler.padEnd(9)} grace ${grace} s: p50 ${fmt(median(lat))}, p99 ${fmt(percentile(lat, 99))}, max ${fmt(Math.max(...lat))}` +
          ` (n=${reps}; target p99 ≤ ${target} ms) ${percentile(lat, 99) <= target ? "OK" : "MISSED"}`,
      );
    }
  }
}

async function zombieDetection(url: string, pool: pg.Pool, boss: PgBoss, kills: number): Promise<void> {
  const s = await insertSchedule(pool, { handler: "demo.hang", timeoutSeconds: 600, retryMaxAttempts: 1 });
  // Fill the long-lived worker's threads so each victim (the only worker with free threads) takes the run.
  const fillers = await createRuns(pool, boss, s, 4);
  await waitFor(
    "the long-lived worker to be full",
    async () =>
      (await pool.query(`SELECT count(*)::int AS n FROM runs WHERE id = ANY($1::uuid[]) AND state = 'running'`, [fillers])).rows[0].n === 4,
    { timeoutMs: 60_000 },
  );
  const times: number[] = [];
  for (let i = 0; i < kills; i++) {
    const [victim] = await startWorkers(url, 1);
    const victimId = await victim!.workerId();
    // Only the victim may take it: the run is created once the victim is the only worker with free threads.
    const [id] = await createRuns(pool, boss, s, 1);
    await waitFor(
      "the hang to start",
      async () => (await pool.query(`SELECT state FROM runs WHERE id = $1`, [id])).rows[0].state === "running",
      { timeoutMs: 60_000 },
    );
    const owner = (await pool.query(`SELECT worker_id FROM runs WHERE id = $1`, [id])).rows[0].worker_id;
    const killedAt: Date = (await pool.query(`SELECT clock_timestamp() AS t`)).rows[0].t;
    await victim!.kill();
    const ev = await waitFor(
      "zombie detection",
      async () => (await pool.query(`SELECT at FROM run_events WHERE run_id = $1 AND type = 'zombie_detected'`, [id])).rows[0],
      { timeoutMs: 60_000 },
    );
    if (owner !== victimId) throw new Error("the victim did not own the run");
    times.push(ev.at.getTime() - killedAt.getTime());
  }
  const { cancelRun } = await import("../core/runs/operate/cancel-run");
  const { systemActor } = await import("../core/auth/roles");
  for (const f of fillers) await cancelRun(f, systemActor("bench"), "bench done");
  say(
    `zombie detection after SIGKILL: ${times.map(fmt).join(", ")}; median ${fmt(median(times))}, max ${fmt(Math.max(...times))}` +
      ` (heartbeat 2 s, threshold 8 s; target ≤ 15 s) ${Math.max(...times) <= 15_000 ? "OK" : "MISSED"}`,
  );
}

export default async function executionBench(
  runs = Number(process.argv[2] ?? 3000),
  rounds = Number(process.argv[3] ?? 3),
  cancels = Number(process.argv[4] ?? 6),
  kills = Number(process.argv[5] ?? 3),
): Promise<void> {
  const server = await startTestPostgres({ durable: true });
  const url = await cloneTemplate(server.adminUrl, "bench_execution");
  process.env.DATABASE_URL = url;
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  const boss = await startTestBoss(url);
  let workers: TestWorker[] = [];
  try {
    say(
      `machine: ${(await import("node:os")).cpus().length} cores, load ${(await import("node:os"))
        .loadavg()
        .map((x) => x.toFixed(1))
        .join(" ")}`,
    );
    // 1. Throughput, alternating Vigil and raw pg-boss rounds (which goes first alternates too) so both see the
    // same conditions. Each phase starts from the same database state: the previous phase's pg-boss jobs are
    // deleted and the tables both use vacuumed, so neither inherits the other's dead rows.
    const vigil: number[] = [];
    const raw: number[] = [];
    const vigilPhase = async () => {
      workers = await startWorkers(url, WORKERS);
      vigil.push(await vigilThroughput(pool, boss, runs));
      await Promise.all(workers.map((w) => w.stop()));
      workers = [];
    };
    const rawPhase = async () => raw.push(await rawThroughput(url, pool, boss, runs));
    const reset = async () => {
      await pool.query(`DELETE FROM pgboss.job WHERE starts_with(name, $1) AND state = 'completed'`, [RUN_QUEUE_PREFIX]);
      await pool.query(`VACUUM (ANALYZE) pgboss.job, runs, attempts, run_events`);
    };
    for (let r = 0; r < rounds; r++) {
      for (const phase of r % 2 === 0 ? [vigilPhase, rawPhase] : [rawPhase, vigilPhase]) {
        await reset();
        await phase();
      }
      say(
        `round ${r + 1}: Vigil ${Math.round(vigil[r]!)} runs/s, raw pg-boss ${Math.round(raw[r]!)} jobs/s (×${(vigil[r]! / raw[r]!).toFixed(2)})`,
      );
    }
    const v = median(vigil);
    const b = median(raw);
    say(`full-path no-op runs:  ${Math.round(v)} runs/s (median of ${rounds} × ${runs}, ${WORKERS} workers × ${CONCURRENCY} threads)`);
    say(
      `raw pg-boss send+work: ${Math.round(b)} jobs/s (median of ${rounds} × ${runs}, ${WORKERS} processes × localConcurrency ${CONCURRENCY}, batchSize 1)`,
    );
    say(`median of the rounds' ratios: ×${median(vigil.map((x, i) => x / raw[i]!)).toFixed(2)}`);
    say(`Vigil / raw pg-boss:   ×${(v / b).toFixed(2)} (target ≥ 1.0)`);

    // 2 and 3 on one long-lived worker (it also reaps the victims of 3).
    workers = await startWorkers(url, 1, { VIGIL_WORKER_CONCURRENCY: "4" });
    await cancelLatencies(pool, boss, cancels);
    await zombieDetection(url, pool, boss, kills);
  } finally {
    await Promise.all(workers.map((w) => w.stop()));
    await boss.stop({ graceful: false, close: true });
    await pool.end();
    const { closePool } = await import("../core/db/pool");
    await closePool();
    await server.stop();
  }
}

runBenchWhenMain(import.meta.url, "execution.bench", () => executionBench(), rawWorker);
