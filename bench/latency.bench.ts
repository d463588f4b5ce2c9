// Latency of one run (issue 16): a manual trigger (core triggerNow, what POST /api/schedules/:id/trigger calls) of a
// default-policy no-op schedule → handler start, on 2 idle workers × 8 threads, one trigger at a time; split into
// trigger → enqueued (planner woken by NOTIFY) and enqueued → started (dispatcher woken by NOTIFY, fetch, claim,
// thread). Against graphile-worker 0.18 in the same run (2 processes × concurrency 8): addJob → task start.
// `npm run bench -- latency` (BENCH_LATENCY_SAMPLES=200 by default).
import os from "node:os";
import pg from "pg";
import { cloneTemplate, dropDatabase, startTestPostgres } from "../test/postgres-for-tests";
import { waitFor } from "../test/wait-for";
import { percentile } from "./lib/stats";
import { startWarmWorkers } from "./lib/workers";
import { runBenchWhenMain } from "./lib/main";
import { graphileWorkerMain, migrateGraphile, startGraphileProcess } from "./lib/graphile";

const say = (line: string) => process.stdout.write(`[latency.bench] ${line}\n`);
const pct = (xs: number[]) => `p50 ${percentile(xs, 50).toFixed(1)} ms, p95 ${percentile(xs, 95).toFixed(1)} ms (n=${xs.length})`;

async function vigilLatency(adminUrl: string, samples: number): Promise<{ total: number[]; enqueue: number[]; start: number[] }> {
  const url = await cloneTemplate(adminUrl, "bench_latency_vigil");
  process.env.DATABASE_URL = url;
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  const workers = await startWarmWorkers(url, 2, { VIGIL_WORKER_CONCURRENCY: "8" });
  const { triggerNow } = await import("../core/schedules/trigger-now");
  const { systemActor } = await import("../core/auth/roles");
  const { closePool } = await import("../core/db/pool");
  try {
    const { rows } = await pool.query(
      `INSERT INTO schedules (name, handler, trigger) VALUES ('latency', 'demo.noop', '{"kind":"once","at":"2099-01-01T00:00:00Z"}') RETURNING id`,
    );
    const scheduleId: string = rows[0].id;
    const out = { total: [] as number[], enqueue: [] as number[], start: [] as number[] };
    for (let i = 0; i < samples + 5; i++) {
      const { runId } = await triggerNow(scheduleId, { reason: "latency bench" }, systemActor("bench"));
      const r = await waitFor(
        "the triggered run to finish",
        async () =>
          (
            await pool.query(
              `SELECT extract(epoch FROM started_at - planned_at)::float8 * 1000 AS total,
                      extract(epoch FROM enqueued_at - planned_at)::float8 * 1000 AS enqueue,
                      extract(epoch FROM started_at - enqueued_at)::float8 * 1000 AS start
                 FROM runs WHERE id = $1 AND finished_at IS NOT NULL`,
              [runId],
            )
          ).rows[0],
        { timeoutMs: 30_000, intervalMs: 5 },
      );
      if (i < 5) continue; // warm-up
      out.total.push(r.total);
      out.enqueue.push(r.enqueue);
      out.start.push(r.start);
      await new Promise((res) => setTimeout(res, 20 + Math.random() * 30)); // not in step with any poll
    }
    return out;
  } finally {
    await Promise.all(workers.map((w) => w.stop()));
    await pool.end();
    await closePool();
    await dropDatabase(adminUrl, url).catch(() => undefined);
  }
}

async function graphileLatency(adminUrl: string, samples: number, benchFile: string): Promise<number[]> {
  const url = await cloneTemplate(adminUrl, "bench_latency_graphile");
  await migrateGraphile(url);
  const procs = await Promise.all(Array.from({ length: 2 }, () => startGraphileProcess(benchFile, url, { concurrency: 8, pollMs: 2000 })));
  const { makeWorkerUtils, Logger } = await import("graphile-worker");
  const utils = await makeWorkerUtils({ connectionString: url, logger: new Logger(() => () => {}) });
  try {
    const lat: number[] = [];
    for (let i = 0; i < samples + 5; i++) {
      const started = Promise.race(procs.map((p) => p.nextStart()));
      const t0 = performance.timeOrigin + performance.now();
      await utils.addJob("noop", {});
      const t1 = await started;
      if (i >= 5) lat.push(t1 - t0);
      await new Promise((res) => setTimeout(res, 20 + Math.random() * 30));
    }
    return lat;
  } finally {
    await utils.release();
    await Promise.all(procs.map((p) => p.stop()));
    await dropDatabase(adminUrl, url).catch(() => undefined);
  }
}

export default async function latencyBench(): Promise<void> {
  const samples = Number(process.env.BENCH_LATENCY_SAMPLES ?? 200);
  const server = await startTestPostgres({ durable: true });
  try {
    say(
      `machine: ${os.cpus().length} cores, load ${os
        .loadavg()
        .map((x) => x.toFixed(1))
        .join(" ")}`,
    );
    const v = await vigilLatency(server.adminUrl, samples);
    say(`Vigil trigger → handler start:   ${pct(v.total)}`);
    say(`  of which trigger → enqueued:    ${pct(v.enqueue)}`);
    say(`  of which enqueued → started:    ${pct(v.start)}`);
    const g = await graphileLatency(server.adminUrl, samples, new URL(import.meta.url).pathname);
    say(`graphile-worker addJob → start:  ${pct(g)}`);
    say(
      `Vigil / graphile-worker: p50 ×${(percentile(v.total, 50) / percentile(g, 50)).toFixed(2)} (goal ≤ 1.5), p95 ×${(percentile(v.total, 95) / percentile(g, 95)).toFixed(2)}`,
    );
    say(
      `load at the end: ${os
        .loadavg()
        .map((x) => x.toFixed(1))
        .join(" ")}`,
    );
  } finally {
    await server.stop();
  }
}

runBenchWhenMain(import.meta.url, "latency.bench", latencyBench, graphileWorkerMain);
