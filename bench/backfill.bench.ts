// Backfill throughput: occurrences written per second by backfillSchedule (one batched INSERT … SELECT FROM
// unnest(arrays) for the runs and their 'planned' events, plus the fire computation, the check for instants
// already covered and the audit row), against a baseline measured in the same run on the same database: one
// INSERT per run and one per event, in one transaction. Median of several runs each. Target: ≥ 10,000/s.
// `npx tsx bench/backfill.bench.ts [runs] [batch] [baselineRows]`
import { pathToFileURL } from "node:url";
import crypto from "node:crypto";
import pg from "pg";
import { cloneTemplate, startTestPostgres } from "../test/postgres-for-tests";

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

export default async function backfillBench(
  runs = Number(process.argv[2] ?? 5),
  batch = Number(process.argv[3] ?? 10_000),
  baselineRows = Number(process.argv[4] ?? 2_000),
): Promise<void> {
  const say = (line: string) => process.stdout.write(`[backfill.bench] ${line}\n`);
  const server = await startTestPostgres();
  const url = await cloneTemplate(server.adminUrl, "bench_backfill");
  process.env.DATABASE_URL = url;
  // Imported after DATABASE_URL is set: core/ reads it once.
  const { closePool, dbNow, getPool } = await import("../core/db/pool");
  const { systemActor } = await import("../core/auth/roles");
  const { createSchedule } = await import("../core/schedules/create-schedule");
  const { backfillSchedule } = await import("../core/schedules/backfill-schedule");
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const actor = systemActor("bench");
    const s = await createSchedule({ name: "bench-backfill", handler: "demo.noop", trigger: { kind: "interval", everySeconds: 1, anchor: "2020-01-01T00:00:00Z" } }, actor);
    const now = await dbNow();
    // Each run backfills its own stretch of the past, so every run writes `batch` new occurrences.
    const stretch = (i: number) => {
      const from = new Date(Date.UTC(now.getUTCFullYear() - 1, 0, 1) + i * 86_400_000);
      return { from: from.toISOString(), to: new Date(from.getTime() + (batch - 1) * 1000).toISOString() };
    };

    const batched: number[] = [];
    for (let i = 0; i < runs; i++) {
      const t0 = performance.now();
      const r = await backfillSchedule(s.id, stretch(i), actor);
      const ms = performance.now() - t0;
      if (r.count !== batch) throw new Error(`expected ${batch} occurrences, backfill wrote ${r.count}`);
      batched.push((batch / ms) * 1000);
    }

    // Baseline: the same rows and events, one INSERT each, in one transaction.
    const baseline: number[] = [];
    for (let i = 0; i < runs; i++) {
      const start = Date.UTC(now.getUTCFullYear() - 2, 0, 1) + i * 86_400_000;
      const t0 = performance.now();
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
      baseline.push((baselineRows / (performance.now() - t0)) * 1000);
    }

    const b = median(batched);
    const one = median(baseline);
    say(`batched backfill:         ${Math.round(b).toLocaleString("en")} occurrences/s  (median of ${runs} × ${batch.toLocaleString("en")}; target ≥ 10,000/s)`);
    say(`one INSERT per row:       ${Math.round(one).toLocaleString("en")} occurrences/s  (median of ${runs} × ${baselineRows.toLocaleString("en")}, same database, same run)`);
    say(`batched / one-per-row:    ×${(b / one).toFixed(1)}`);
    say(`all batched runs (occ/s): ${batched.map((x) => Math.round(x)).join(", ")}`);
    const { rows } = await getPool().query(`SELECT count(*)::int AS n FROM runs WHERE schedule_id = $1`, [s.id]);
    say(`runs in the table at the end: ${rows[0].n.toLocaleString("en")}`);
  } finally {
    await client.end();
    await closePool();
    await server.stop();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  backfillBench().catch((err) => {
    process.stderr.write(`[backfill.bench] failed: ${(err as Error).stack ?? err}\n`);
    process.exit(1);
  });
}
