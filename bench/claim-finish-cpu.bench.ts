// The server CPU of the default path's claim and outcome statements per run, measured where a shared,
// loaded machine cannot blur it: one session claims (claimFreeRuns) and records the success of (finishFreeRuns)
// N queued runs of 'skip' schedules, B runs a statement, and the figure is that session's server process's own CPU
// time (utime + stime from /proc) per run, plus the WAL it wrote. Variants are SQL applied to the database first
// (BENCH_CPU_VARIANTS="name=>sql|name=>sql"), e.g. disabling the runs triggers or restoring an older index, to see
// what each part costs; BENCH_CPU_BATCHES=4,8,32 separates the cost per statement from the cost per run.
// `npm run bench -- claim-finish-cpu` (BENCH_CPU_N=2000, BENCH_CPU_BATCHES=8, BENCH_CPU_DUE_IN_S=-5: every start
// 5 s late, as in a fan-out; a positive value starts them before they are due, on time; BENCH_CPU_ROUNDS=2).
import fs from "node:fs";
import pg from "pg";
import { cloneTemplate, dropDatabase, startTestPostgres } from "../test/postgres-for-tests";
import { claimFreeRuns } from "../core/runs/claim/claim-free-runs";
import { finishFreeRuns } from "../core/runs/finish/finish-free-runs";
import { runBenchWhenMain } from "./lib/main";

const say = (line: string) => process.stdout.write(`[claim-finish-cpu.bench] ${line}\n`);

/** CPU time (ms) the server process `pid` has used so far. */
function cpuMs(pid: number): number {
  const f = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(f[11]) + Number(f[12])) * 10; // utime + stime, in clock ticks of 10 ms
}

async function measure(adminUrl: string, name: string, sql: string, n: number, batch: number, dueInS: number): Promise<string> {
  const url = await cloneTemplate(adminUrl, `bench_cpu_${name.replace(/\W/g, "_").slice(0, 30)}_${batch}`);
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  try {
    if (sql) await pool.query(sql);
    await pool.query(
      `INSERT INTO schedules (name, handler, trigger, overlap_policy, starting_deadline_seconds)
       SELECT 'cpu-' || g, 'demo.noop', '{"kind":"once","at":"2026-01-01T00:00:00Z"}', 'skip', 3600 FROM generate_series(1, $1::int) g`,
      [n],
    );
    await pool.query(
      `INSERT INTO runs (schedule_id, kind, planned_at, due_at, idempotency_key, state, handler, timeout_seconds, grace_seconds, enqueued_at)
       SELECT s.id, 'scheduled', t, t, 'cpu-' || s.id, 'queued', 'demo.noop', 60, 5, clock_timestamp()
         FROM schedules s, (SELECT clock_timestamp() + make_interval(secs => $1) AS t) x`,
      [dueInS],
    );
    await pool.query("VACUUM ANALYZE runs");
    const ids: string[] = (await pool.query(`SELECT id FROM runs ORDER BY id`)).rows.map((r) => r.id);
    const client = await pool.connect();
    try {
      const pid: number = (await client.query("SELECT pg_backend_pid() AS p")).rows[0].p;
      const lsn0: string = (await client.query("SELECT pg_current_wal_lsn()::text AS l")).rows[0].l;
      const cpu0 = cpuMs(pid);
      for (let i = 0; i < ids.length; i += batch) {
        const part = ids.slice(i, i + batch);
        const claimed = await claimFreeRuns(
          client,
          part.map((id) => ({ runId: id, attempt: 1, jobId: `j-${id}`, workerId: "w1" })),
        );
        if (claimed.some((c) => c?.kind !== "start")) throw new Error("a run was not started by the one-statement claim");
        const finished = await finishFreeRuns(
          client,
          part.map((id) => ({
            runId: id,
            attempt: 1,
            workerId: "w1",
            jobId: `j-${id}`,
            outcome: { kind: "succeeded" as const, result: {} },
            durationMs: 1,
          })),
        );
        if (finished.some((f) => !f?.recorded)) throw new Error("an outcome was not recorded by the one-statement finish");
      }
      const cpu = cpuMs(pid) - cpu0;
      const wal = Number((await client.query("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1::pg_lsn) AS b", [lsn0])).rows[0].b);
      return `${name.padEnd(32)} batch ${String(batch).padStart(2)}: server CPU ${Math.round((cpu / n) * 1000)} µs per run (claim + success), WAL ${Math.round(wal / n)} B per run`;
    } finally {
      client.release();
    }
  } finally {
    await pool.end();
    await dropDatabase(adminUrl, url).catch(() => undefined);
  }
}

export default async function claimFinishCpuBench(): Promise<void> {
  const n = Number(process.env.BENCH_CPU_N ?? 2000);
  const batches = (process.env.BENCH_CPU_BATCHES ?? "8").split(",").map(Number);
  const dueInS = Number(process.env.BENCH_CPU_DUE_IN_S ?? -5);
  const rounds = Number(process.env.BENCH_CPU_ROUNDS ?? 2);
  const variants: [string, string][] = [
    ["as is", ""],
    ...(process.env.BENCH_CPU_VARIANTS ?? "")
      .split("|")
      .filter(Boolean)
      .map((v) => v.split("=>") as [string, string]),
  ];
  const server = await startTestPostgres({});
  try {
    say(`${n} runs, due ${dueInS} s from their claim, ${rounds} rounds (A B … A B …: a load that drifts favours no variant)`);
    for (let round = 0; round < rounds; round++) {
      for (const batch of batches) {
        for (const [name, sql] of variants) say(await measure(server.adminUrl, name, sql, n, batch, dueInS));
      }
    }
  } finally {
    await server.stop();
  }
}

runBenchWhenMain(import.meta.url, "claim-finish-cpu.bench", claimFinishCpuBench);
