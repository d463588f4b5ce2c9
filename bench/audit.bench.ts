// Audit trail at scale: inserts 1,000,000 hash-chained rows (the chain trigger runs per row), then
// times the audit page's queries through listAudit — the first page and filtered pages — as the
// median of several runs. Target: under 100 ms each. `npx tsx bench/audit.bench.ts [rows]`
import fs from "node:fs";
import os from "node:os";
import pg from "pg";
import { cloneTemplate, startTestPostgres } from "../test/postgres-for-tests";
import { median } from "./lib/stats";
import { runBenchWhenMain } from "./lib/main";

const RUNS = 7;
// The machine these figures come from is often shared: wall time then measures the queue for a core
// as much as the query. The database backend's own CPU time (from /proc, Linux only) does not.
const CPU_RUNS = 30;
const TICK_MS = 10; // USER_HZ = 100 on Linux

function backendCpuMs(pid: number): number | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS; // utime + stime
  } catch {
    return null;
  }
}

const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(" / ");

export default async function auditBench(rowCount = Number(process.argv[2] ?? 1_000_000)): Promise<void> {
  const say = (line: string) => process.stdout.write(`[audit.bench] ${line}\n`);
  const server = await startTestPostgres({ durable: true });
  const url = await cloneTemplate(server.adminUrl, "bench_audit");
  process.env.DATABASE_URL = url;
  // Imported after DATABASE_URL is set: core/ reads it once.
  const { closePool } = await import("../core/db/pool");
  const { listAudit } = await import("../core/audit/list-audit");
  const { verifyAudit } = await import("../core/audit/verify-audit");
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    say(`inserting ${rowCount.toLocaleString("en")} audit rows in one INSERT … SELECT generate_series … (load average ${load()})`);
    let t0 = performance.now();
    // 200 people, 12 action kinds, 20,000 targets, a reason on every 7th row: roughly a busy year.
    await client.query(
      `INSERT INTO audit_events (actor_type, actor_id, actor, action, target_type, target_id, before, after, reason, ip, user_agent)
       SELECT CASE WHEN g % 10 = 0 THEN 'system' ELSE 'user' END,
              NULL,
              CASE WHEN g % 10 = 0 THEN 'planner' ELSE 'user' || (g % 200) || '@example.com' END,
              (ARRAY['schedule.create','schedule.edit','schedule.pause','schedule.resume','schedule.trigger','schedule.backfill',
                     'run.cancel','run.missed','run.zombie_reaped','auth.login','auth.login_failure','user.role_change'])[1 + g % 12],
              CASE WHEN g % 2 = 0 THEN 'schedule' ELSE 'run' END,
              md5((g % 20000)::text)::uuid::text,
              jsonb_build_object('enabled', true, 'revision', g % 97),
              jsonb_build_object('enabled', g % 3 <> 0, 'revision', g % 97 + 1),
              CASE WHEN g % 7 = 0 THEN 'maintenance window ' || (g % 1000) ELSE NULL END,
              '10.0.' || (g % 250) || '.' || (g % 200),
              'bench'
         FROM generate_series(1, $1::int) g`,
      [rowCount],
    );
    const insertMs = performance.now() - t0;
    say(`inserted in ${(insertMs / 1000).toFixed(1)} s (${((insertMs * 1000) / rowCount).toFixed(1)} µs per row, chain trigger included)`);
    await client.query("VACUUM ANALYZE audit_events");

    const { rows: mid } = await client.query(`SELECT id, at FROM audit_events ORDER BY id OFFSET $1 LIMIT 1`, [Math.floor(rowCount / 2)]);
    const { rows: target } = await client.query(`SELECT target_type, target_id FROM audit_events WHERE id = $1`, [mid[0].id]);
    const cases: [string, Parameters<typeof listAudit>[1]][] = [
      ["first page (no filter)", {}],
      ["page in the middle (cursor)", { cursor: String(mid[0].id) }],
      ["filter: action = run.cancel", { action: "run.cancel" }],
      ["filter: actor = user17@example.com", { actor: "user17@example.com" }],
      [`filter: target = ${target[0].target_type}:<id> (deep link)`, { target: `${target[0].target_type}:${target[0].target_id}` }],
      ["filter: actor + action", { actor: "user17@example.com", action: "schedule.pause" }],
      ["filter: time range (up to the midpoint)", { to: new Date(mid[0].at).toISOString() }],
      ["search q = 'maintenance window 42' (rare)", { q: "maintenance window 42" }],
      ["search q = 'schedule.pause' (common)", { q: "schedule.pause" }],
      ["search q = 'no-such-text' (no match)", { q: "no-such-text" }],
    ];
    const { rows: pidRow } = await client.query(`SELECT pg_backend_pid() AS pid`);
    const backend = Number(pidRow[0].pid);
    const results: { name: string; median: number; cpu: number | null; rows: number }[] = [];
    say(`timing queries (load average ${load()})`);
    for (const [name, filter] of cases) {
      const times: number[] = [];
      let n = 0;
      for (let i = 0; i < RUNS; i++) {
        t0 = performance.now();
        const page = await listAudit(client, { ...filter, limit: 50 });
        times.push(performance.now() - t0);
        n = page.events.length;
      }
      const cpu0 = backendCpuMs(backend);
      for (let i = 0; i < CPU_RUNS; i++) await listAudit(client, { ...filter, limit: 50 });
      const cpu1 = backendCpuMs(backend);
      results.push({ name, median: median(times), cpu: cpu0 === null || cpu1 === null ? null : (cpu1 - cpu0) / CPU_RUNS, rows: n });
    }
    t0 = performance.now();
    const v = await verifyAudit(client);
    const verifyMs = performance.now() - t0;

    say(
      `rows: ${rowCount.toLocaleString("en")}; page size 50; wall = median of ${RUNS} runs; cpu = database backend CPU per query, mean of ${CPU_RUNS}`,
    );
    say(`load average at the end ${load()} on ${os.cpus().length} cores (target < 100 ms)`);
    for (const r of results) {
      const cpu = r.cpu === null ? "n/a" : `${r.cpu.toFixed(1)} ms`;
      say(
        `  ${r.name.padEnd(52)} wall ${r.median.toFixed(1).padStart(7)} ms   cpu ${cpu.padStart(8)}   (${r.rows} rows)${r.median < 100 ? "" : "  ← wall over target"}`,
      );
    }
    say(`verify chain over all rows: ${(verifyMs / 1000).toFixed(1)} s, ok=${v.ok}, checked=${v.checked}`);
  } finally {
    await client.end();
    await closePool();
    await server.stop();
  }
}

runBenchWhenMain(import.meta.url, "audit.bench", () => auditBench());
