// Backfill throughput: occurrences written per second by backfillSchedule (one batched INSERT … SELECT FROM
// unnest(arrays) for the runs and their 'planned' events, plus the fire computation, the check for instants
// already covered and the audit row), against a baseline measured in the same run on the same database: one
// INSERT per run and one per event, in one transaction. Median of several runs each. Target: ≥ 10,000/s.
// The machine is often shared, so besides wall-clock rates it reports CPU-bound rates: occurrences per second
// of CPU spent by the database backend (from /proc, Linux only) plus this process, which waiting for a core
// does not inflate. `npx tsx bench/backfill.bench.ts [runs] [batch] [baselineRows]`
import fs from "node:fs";
import os from "node:os";
import crypto from "node:crypto";
import pg from "pg";
import { cloneTemplate, startTestPostgres } from "../test/postgres-for-tests";
import { median } from "./lib/stats";
import { runBenchWhenMain } from "./lib/main";

/** CPU time (ms) of a database backend process: utime + stime in clock ticks of 10 ms. */
function backendCpuMs(pid: number): number | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}

/** Wall-clock and CPU-bound rates of one measured stretch. */
async function measure(count: number, backendPid: number, fn: () => Promise<void>): Promise<{ wall: number; cpu: number | null }> {
  const db0 = backendCpuMs(backendPid);
  const me0 = process.cpuUsage();
  const t0 = performance.now();
  await fn();
  const wallMs = performance.now() - t0;
  const me = process.cpuUsage(me0);
  const db1 = backendCpuMs(backendPid);
  const cpuMs = db0 === null || db1 === null ? null : db1 - db0 + (me.user + me.system) / 1000;
  return { wall: (count / wallMs) * 1000, cpu: cpuMs === null || cpuMs <= 0 ? null : (count / cpuMs) * 1000 };
}

export default async function backfillBench(
  runs = Number(process.argv[2] ?? 5),
  batch = Number(process.argv[3] ?? 10_000),
  baselineRows = Number(process.argv[4] ?? 2_000),
): Promise<void> {
  const say = (line: string) => process.stdout.write(`[backfill.bench] ${line}\n`);
  const server = await startTestPostgres({ durable: true });
  const url = await cloneTemplate(server.adminUrl, "bench_backfill");
  process.env.DATABASE_URL = url;
  // Imported after DATABASE_URL is set: core/ reads it once.
  const { closePool, dbNow, getPool } = await import("../core/db/pool");
  const { systemActor } = await import("../core/auth/roles");
  const { createSchedule } = await import("../core/schedules/create-schedule");
  const { backfillSchedule } = await import("../core/schedules/backfill-schedule");
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const backendPid: number = (await client.query(`SELECT pg_backend_pid() AS pid`)).rows[0].pid;
  try {
    const actor = systemActor("bench");
    const s = await createSchedule(
      { name: "bench-backfill", handler: "demo.noop", trigger: { kind: "interval", everySeconds: 1, anchor: "2020-01-01T00:00:00Z" } },
      actor,
    );
    const now = await dbNow();
    // Each run backfills its own stretch of the past, so every run writes `batch` new occurrences.
    const stretch = (i: number) => {
      const from = new Date(Date.UTC(now.getUTCFullYear() - 1, 0, 1) + i * 86_400_000);
      return { from: from.toISOString(), to: new Date(from.getTime() + (batch - 1) * 1000).toISOString() };
    };

    // On one connection (its backend's CPU is what is measured), one transaction per backfill as the API does.
    const batched: { wall: number; cpu: number | null }[] = [];
    for (let i = 0; i < runs; i++) {
      batched.push(
        await measure(batch, backendPid, async () => {
          await client.query("BEGIN");
          const r = await backfillSchedule(s.id, stretch(i), actor, { db: client });
          await client.query("COMMIT");
          if (r.count !== batch) throw new Error(`expected ${batch} occurrences, backfill wrote ${r.count}`);
        }),
      );
    }

    // Baseline: the same rows and events, one INSERT each, in one transaction.
    const baseline: { wall: number; cpu: number | null }[] = [];
    const oneByOne = async (start: number) => {
      await client.query("BEGIN");
      for (let k = 0; k < baselineRows; k++) {
        const at = new Date(start + k * 1000).toISOString();
        const { rows } = await client.query(
          `INSERT INTO runs (id, schedule_id, kind, planned_at, due_at, idempotency_key, state, wait_reason, handler, payload,
                             timeout_seconds, grace_seconds, max_attempts, concurrency_group)
           SELECT $1, s.id, 'backfill', $2, clock_timestamp(), $3, 'planned', 'backfill', s.handler, s.payload,
                  s.timeout_seconds, s.grace_seconds, s.retry_max_attempts, s.concurrency_group
             FROM schedules s WHERE s.id = $4
           ON CONFLICT DO NOTHING RETURNING id`,
          [crypto.randomUUID(), at, `baseline:${s.id}:${at}`, s.id],
        );
        await client.query(`INSERT INTO run_events (run_id, type, message) VALUES ($1, 'planned', 'baseline')`, [rows[0].id]);
      }
      await client.query("COMMIT");
    };
    for (let i = 0; i < runs; i++) {
      baseline.push(await measure(baselineRows, backendPid, () => oneByOne(Date.UTC(now.getUTCFullYear() - 2, 0, 1) + i * 86_400_000)));
    }

    const fmt = (x: number | null) => (x === null ? "n/a" : Math.round(x).toLocaleString("en"));
    const cpuMedian = (xs: { cpu: number | null }[]) => (xs.some((x) => x.cpu === null) ? null : median(xs.map((x) => x.cpu!)));
    const b = median(batched.map((x) => x.wall));
    const one = median(baseline.map((x) => x.wall));
    const bCpu = cpuMedian(batched);
    const oneCpu = cpuMedian(baseline);
    say(
      `load average ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(" / ")} on ${os.cpus().length} cores`,
    );
    say(
      `batched backfill:      ${fmt(b).padStart(7)} occurrences/s wall, ${fmt(bCpu).padStart(7)} per CPU-second  (median of ${runs} × ${batch.toLocaleString("en")}; target ≥ 10,000/s)`,
    );
    say(
      `one INSERT per row:    ${fmt(one).padStart(7)} occurrences/s wall, ${fmt(oneCpu).padStart(7)} per CPU-second  (median of ${runs} × ${baselineRows.toLocaleString("en")}, same database, same run)`,
    );
    say(`batched / one-per-row: ×${(b / one).toFixed(1)} wall${bCpu && oneCpu ? `, ×${(bCpu / oneCpu).toFixed(1)} CPU` : ""}`);
    say(`batched runs, wall occurrences/s: ${batched.map((x) => Math.round(x.wall)).join(", ")}`);
    const { rows } = await getPool().query(`SELECT count(*)::int AS n FROM runs WHERE schedule_id = $1`, [s.id]);
    say(`runs in the table at the end: ${rows[0].n.toLocaleString("en")}`);
  } finally {
    await client.end();
    await closePool();
    await server.stop();
  }
}

runBenchWhenMain(import.meta.url, "backfill.bench", () => backfillBench());
