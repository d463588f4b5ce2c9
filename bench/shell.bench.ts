// What shell.command costs per run: N runs of `/bin/true` through the whole path (queued run → claim →
// attempt thread → spawn in its own process group → exit → outcome recorded) on one warm worker running
// one attempt at a time, against a bare child_process.spawn of the same command (same options: detached,
// piped output, a minimal environment) in this process, measured in the same run; demo.noop runs show
// how much of it is the executor rather than the process. Rounds alternate so all three see the same load.
//  - handler time: the attempt's duration_ms (monotonic, in the worker: thread start → handler returned)
//  - started → finished: the run's started_at → finished_at on the database clock (outcome recorded)
// `npx tsx bench/shell.bench.ts [runsPerRound=100] [rounds=3]`
import { spawn } from "node:child_process";
import os from "node:os";
import pg from "pg";
import type { PgBoss } from "pg-boss";
import { cloneTemplate, startTestPostgres } from "../test/postgres-for-tests";
import type { TestWorker } from "../test/worker-process";
import { createRuns, insertSchedule, startTestBoss } from "../test/run-fixtures";
import { waitFor } from "../test/wait-for";
import { median, percentile } from "./lib/stats";
import { startWarmWorkers } from "./lib/workers";
import { runBenchWhenMain } from "./lib/main";

const say = (line: string) => process.stdout.write(`[shell.bench] ${line}\n`);
const load = () =>
  os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(" ");
const fmt = (xs: number[]) => `median ${median(xs).toFixed(2)} ms, p95 ${percentile(xs, 95).toFixed(2)} ms`;

interface RunCost {
  handlerMs: number[];
  recordedMs: number[];
}

/** n runs of one schedule, queued together and executed one at a time by the worker (concurrency 1). */
async function runCosts(pool: pg.Pool, boss: PgBoss, scheduleId: string, n: number): Promise<RunCost> {
  const ids = await createRuns(pool, boss, scheduleId, n);
  await waitFor(
    `${n} runs to finish`,
    async () =>
      (await pool.query(`SELECT count(*)::int AS n FROM runs WHERE id = ANY($1::uuid[]) AND finished_at IS NULL`, [ids])).rows[0].n === 0,
    { timeoutMs: 600_000, intervalMs: 100 },
  );
  const { rows } = await pool.query(
    `SELECT state, duration_ms::float8 AS handler_ms, extract(epoch FROM finished_at - started_at)::float8 * 1000 AS recorded_ms
       FROM runs WHERE id = ANY($1::uuid[])`,
    [ids],
  );
  const bad = rows.filter((r) => r.state !== "succeeded");
  if (bad.length > 0) throw new Error(`${bad.length} of ${n} runs did not succeed (${bad[0].state})`);
  return { handlerMs: rows.map((r) => r.handler_ms), recordedMs: rows.map((r) => r.recorded_ms) };
}

/** The same command spawned bare, as shell.command spawns it, n times one after another: spawn → close. */
async function bareSpawns(n: number): Promise<number[]> {
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/" } as unknown as NodeJS.ProcessEnv;
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await new Promise<void>((resolve, reject) => {
      const child = spawn("/bin/true", [], { detached: true, env, stdio: ["ignore", "pipe", "pipe"] });
      child.once("error", reject);
      child.once("close", (code) => (code === 0 ? resolve() : reject(new Error(`/bin/true exited ${code}`))));
    });
    out.push(performance.now() - t0);
  }
  return out;
}

export default async function shellBench(perRound = Number(process.argv[2] ?? 100), rounds = Number(process.argv[3] ?? 3)): Promise<void> {
  const server = await startTestPostgres({ durable: true });
  const url = await cloneTemplate(server.adminUrl, "bench_shell");
  process.env.DATABASE_URL = url;
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  const boss = await startTestBoss(url);
  let workers: TestWorker[] = [];
  try {
    say(`machine: ${os.cpus().length} cores, load ${load()} (1, 5, 15 min)`);
    workers = await startWarmWorkers(url, 1, { VIGIL_WORKER_CONCURRENCY: "1" });
    const shell = await insertSchedule(pool, { handler: "shell.command", payload: { command: ["/bin/true"] } });
    const noop = await insertSchedule(pool, { handler: "demo.noop" });
    // Warm-up (first spawns, first statements), not counted.
    await runCosts(pool, boss, shell, 10);
    await runCosts(pool, boss, noop, 10);
    await bareSpawns(10);
    const s: RunCost = { handlerMs: [], recordedMs: [] };
    const o: RunCost = { handlerMs: [], recordedMs: [] };
    const bare: number[] = [];
    for (let r = 0; r < rounds; r++) {
      const sr = await runCosts(pool, boss, shell, perRound);
      const or = await runCosts(pool, boss, noop, perRound);
      const br = await bareSpawns(perRound);
      s.handlerMs.push(...sr.handlerMs);
      s.recordedMs.push(...sr.recordedMs);
      o.handlerMs.push(...or.handlerMs);
      o.recordedMs.push(...or.recordedMs);
      bare.push(...br);
      say(
        `round ${r + 1}: shell.command handler ${median(sr.handlerMs).toFixed(2)} ms, demo.noop ${median(or.handlerMs).toFixed(2)} ms, bare spawn ${median(br).toFixed(2)} ms (medians; load ${load()})`,
      );
    }
    const n = rounds * perRound;
    say(`bare spawn /bin/true (this process):   ${fmt(bare)} (n=${n})`);
    say(
      `shell.command, handler time:          ${fmt(s.handlerMs)} → ×${(median(s.handlerMs) / median(bare)).toFixed(1)} of a bare spawn (median)`,
    );
    say(
      `shell.command, started → recorded:    ${fmt(s.recordedMs)} → ×${(median(s.recordedMs) / median(bare)).toFixed(1)} of a bare spawn (median)`,
    );
    say(`demo.noop,     handler time:          ${fmt(o.handlerMs)}`);
    say(`demo.noop,     started → recorded:    ${fmt(o.recordedMs)}`);
    say(
      `shell.command − demo.noop (medians):  handler ${(median(s.handlerMs) - median(o.handlerMs)).toFixed(2)} ms, started → recorded ${(median(s.recordedMs) - median(o.recordedMs)).toFixed(2)} ms`,
    );
    say(`load at the end: ${load()}`);
  } finally {
    await Promise.all(workers.map((w) => w.stop()));
    await boss.stop({ graceful: false, close: true });
    await pool.end();
    await server.stop();
  }
}

runBenchWhenMain(import.meta.url, "shell.bench", () => shellBench());
