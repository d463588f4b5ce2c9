// Observability at scale: N schedules with lateness / completion / work / failure expectations, one run a minute
// each for H hours (the metrics window is 24 h), a sprinkle of late, missed, hollow, failed and zombie runs. Times
// one alert evaluation pass (what every worker does every 2 s) and one /api/metrics scrape (registry built from
// SQL + rendered) with the default 1 h window and with 24 h, as the median of several runs. `npx tsx bench/observability.bench.ts [schedules] [hours]`
import pg from "pg";
import { cloneTemplate, startTestPostgres } from "../test/postgres-for-tests";
import { median } from "./lib/stats";
import { runBenchWhenMain } from "./lib/main";

const RUNS = 7;

export default async function observabilityBench(
  schedules = Number(process.argv[2] ?? 1000),
  hours = Number(process.argv[3] ?? 24),
): Promise<void> {
  const say = (line: string) => process.stdout.write(`[observability.bench] ${line}\n`);
  const server = await startTestPostgres({ durable: true });
  const url = await cloneTemplate(server.adminUrl, "bench_observability");
  process.env.DATABASE_URL = url;
  const { closePool, getPool } = await import("../core/db/pool");
  const { evaluateAlerts } = await import("../core/alerts/evaluate-alerts");
  const { collectMetrics } = await import("../core/metrics/collect-metrics");
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const runsPerSchedule = hours * 60;
    say(
      `${schedules} schedules × ${runsPerSchedule} runs (one a minute for ${hours} h) = ${(schedules * runsPerSchedule).toLocaleString("en")} runs`,
    );
    let t0 = performance.now();
    await client.query(
      `INSERT INTO schedules (name, handler, trigger, lateness_max_ms, lateness_p95_slo_ms, completion_deadline_seconds, expect_records_min, failure_alert_threshold)
       SELECT 'bench-' || g, 'demo.sleep', '{"kind":"interval","everySeconds":60}', 5000, 1000, 120, 1, 3
         FROM generate_series(1, $1::int) g`,
      [schedules],
    );
    // Mostly on time; every 97th run late, every 89th missed, every 83rd hollow, every 79th failed.
    await client.query(
      `INSERT INTO runs (schedule_id, kind, planned_at, due_at, idempotency_key, state, handler, timeout_seconds, grace_seconds,
                         attempt, started_at, finished_at, lateness_ms, duration_ms, records, worker_id)
       SELECT s.id, 'scheduled', p.planned, p.planned, s.id || ':' || m, x.state, 'demo.sleep', 60, 5,
              CASE WHEN x.state = 'missed' THEN 0 ELSE 1 END,
              CASE WHEN x.state = 'missed' THEN NULL ELSE p.planned + x.late * interval '1 millisecond' END,
              CASE WHEN x.state = 'missed' THEN NULL ELSE p.planned + (x.late + 800) * interval '1 millisecond' END,
              CASE WHEN x.state = 'missed' THEN NULL ELSE x.late END,
              CASE WHEN x.state = 'missed' THEN NULL ELSE 800 END,
              CASE WHEN x.state = 'hollow' THEN 0 ELSE 5 END, 'bench-worker'
         FROM schedules s
        CROSS JOIN generate_series(1, $1::int) m
        CROSS JOIN LATERAL (SELECT date_trunc('minute', now()) - m * interval '1 minute' + (hashtext(s.id::text) & 59) * interval '1 second' AS planned) p
        CROSS JOIN LATERAL (SELECT
            CASE WHEN (m + (hashtext(s.id::text) & 7)) % 89 = 0 THEN 'missed' WHEN m % 83 = 0 THEN 'hollow' WHEN m % 79 = 0 THEN 'failed' ELSE 'succeeded' END AS state,
            CASE WHEN m % 97 = 0 THEN 9000 ELSE 5 + (m % 40) END AS late) x`,
      [runsPerSchedule],
    );
    await client.query(`INSERT INTO workers (id, host, pid, version, planner_lag_ms) VALUES ('bench-worker', 'bench', 1, '0', 12)`);
    say(`inserted in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    await client.query("VACUUM ANALYZE");

    const opts = { deadAfterMs: 10_000, plannerLagThresholdMs: 5000, latenessWindowSeconds: 900, globalWebhookUrl: null };
    const pool = getPool();
    t0 = performance.now();
    const first = await evaluateAlerts(pool, opts);
    say(
      `first evaluation (opens the alerts): ${Math.round(performance.now() - t0)} ms, ${first.opened.length} opened, ${first.resolved.length} resolved`,
    );
    const evals: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const r = await evaluateAlerts(pool, opts);
      evals.push(r.durationMs);
    }
    say(
      `steady alert evaluation pass: median ${Math.round(median(evals))} ms (min ${Math.round(Math.min(...evals))}, max ${Math.round(Math.max(...evals))})`,
    );

    for (const windowSeconds of [3600, 86400]) {
      const collect: number[] = [];
      const render: number[] = [];
      let bytes = 0;
      for (let i = 0; i < RUNS; i++) {
        t0 = performance.now();
        const reg = await collectMetrics(pool, { deadAfterMs: 10_000, windowSeconds });
        collect.push(performance.now() - t0);
        t0 = performance.now();
        bytes = (await reg.metrics()).length;
        render.push(performance.now() - t0);
      }
      say(
        `/api/metrics scrape, ${windowSeconds / 3600} h window: SQL median ${Math.round(median(collect))} ms + render median ${Math.round(median(render))} ms, ` +
          `${(bytes / 1024).toFixed(0)} KiB of text`,
      );
    }
    await closePool();
  } finally {
    await client.end();
    await server.stop();
  }
}

runBenchWhenMain(import.meta.url, "observability.bench", () => observabilityBench());
