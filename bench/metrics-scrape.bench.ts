// Where a /api/metrics scrape's time goes, at SMALL (50) and then LARGE (1,000) schedules × HOURS (7) of
// one-a-minute history seeded the way console-scale.bench.ts seeds it: each database read of collectMetrics timed on
// its own (median of SAMPLES, each after a warm-up), then the whole collectMetrics, prom-client's rendering of the
// registry and the answer's size. The 90-day totals are timed uncached (the console reuses them for a minute).
// `npm run bench -- metrics-scrape`; sized by METRICS_SCRAPE_SMALL, METRICS_SCRAPE_LARGE, METRICS_SCRAPE_HOURS,
// METRICS_SCRAPE_SAMPLES (15). Each statement a scrape runs is also printed with its server-side execution time (median
// of EXPLAIN ANALYZE, timing off), so the database's share can be told from the client's under load;
// METRICS_SCRAPE_PLANS=true prints the plans of the statements above 2 ms.
// METRICS_SCRAPE_HTTP=true also times GET /api/metrics on the production console (built when stale), asked with
// `Accept-Encoding: gzip` (as Prometheus asks) and `identity`: time to the last byte over node:http (nothing decoded on
// this side), bytes on the wire, and the scrape's own vigil_metrics_scrape_duration_seconds (its database part), so
// the rest (rendering, compression, Next.js, the socket) can be told apart. METRICS_SCRAPE_BASELINE_DIR=<another tree,
// built, same migrations> starts that tree's console too against the same database and interleaves the two sample by
// sample (before and after in one sitting, the same load for both).
import fs from "node:fs";
import http from "node:http";
import { gunzipSync } from "node:zlib";
import pg from "pg";
import { median, percentile } from "./lib/stats";
import { runBenchWhenMain } from "./lib/main";
import { seedScheduleHistory } from "../test/seed-history";
import type { Queryable } from "../core/db/pool";
import { buildConsoleIfStale, startBenchConsole, type BenchConsole } from "./lib/console";
import { settleSeededLikeAWorker } from "./lib/settle-seeded";
import { terminate } from "../scripts/lib/processes";
import { createTestToken } from "../test/auth";

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const SMALL = env("METRICS_SCRAPE_SMALL", 50);
const LARGE = env("METRICS_SCRAPE_LARGE", 1000);
const HOURS = env("METRICS_SCRAPE_HOURS", 7);
const SAMPLES = env("METRICS_SCRAPE_SAMPLES", 15);
const HTTP = process.env.METRICS_SCRAPE_HTTP === "true";
const BASELINE_DIR = process.env.METRICS_SCRAPE_BASELINE_DIR;
const say = (line: string) => process.stdout.write(`[metrics-scrape.bench] ${line}\n`);
const load = () => fs.readFileSync("/proc/loadavg", "utf8").split(" ")[0];

async function time(fn: () => Promise<unknown>): Promise<{ p50: number; p95: number }> {
  await fn();
  const t: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const s = performance.now();
    await fn();
    t.push(performance.now() - s);
  }
  return { p50: median(t), p95: percentile(t, 95) };
}

interface HttpSample {
  ms: number;
  wire: number;
  encoding: string;
  /** vigil_metrics_scrape_duration_seconds of that scrape, in ms: its database reads. */
  collectMs: number;
}

function getScrape(base: string, token: string, encoding: "gzip" | "identity"): Promise<HttpSample> {
  return new Promise((resolve, reject) => {
    const t = performance.now();
    const req = http.get(`${base}/api/metrics`, { headers: { authorization: `Bearer ${token}`, "accept-encoding": encoding } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (b: Buffer) => chunks.push(b));
      res.on("end", () => {
        const ms = performance.now() - t;
        if (res.statusCode !== 200) return reject(new Error(`GET /api/metrics: ${res.statusCode}`));
        const body = Buffer.concat(chunks);
        const enc = String(res.headers["content-encoding"] ?? "identity");
        const text = (enc === "gzip" ? gunzipSync(body) : body).toString("utf8");
        const collectMs = Number(/^vigil_metrics_scrape_duration_seconds (\S+)$/m.exec(text)?.[1] ?? NaN) * 1000;
        resolve({ ms, wire: body.length, encoding: enc, collectMs });
      });
      res.on("error", reject);
    });
    req.on("error", reject);
  });
}

type HttpFigures = Map<string, { p50: number; p95: number; wire: number; encoding: string; collectP50: number }>;

/** Every console × encoding, interleaved sample by sample (one warm-up round first). */
async function measureHttp(label: string, consoles: [string, BenchConsole][], token: string): Promise<HttpFigures> {
  const variants = consoles.flatMap(([name, c]) => (["gzip", "identity"] as const).map((enc) => ({ key: `${name}, ${enc}`, c, enc })));
  const samples = new Map<string, HttpSample[]>(variants.map((v) => [v.key, []]));
  for (let i = 0; i <= SAMPLES * 2; i++) {
    for (const v of variants) {
      const s = await getScrape(v.c.base, token, v.enc);
      if (i > 0) samples.get(v.key)!.push(s);
    }
  }
  const out: HttpFigures = new Map();
  for (const [key, xs] of samples) {
    const ms = xs.map((x) => x.ms);
    const f = {
      p50: median(ms),
      p95: percentile(ms, 95),
      wire: xs[0]!.wire,
      encoding: xs[0]!.encoding,
      collectP50: median(xs.map((x) => x.collectMs)),
    };
    out.set(key, f);
    say(
      `${label}: HTTP ${key}: p50 ${f.p50.toFixed(1)} ms, p95 ${f.p95.toFixed(1)} ms, ${(f.wire / 1024).toFixed(1)} KB on the wire (${f.encoding}); ` +
        `its database reads (scrape_duration) p50 ${f.collectP50.toFixed(1)} ms (load ${load()})`,
    );
  }
  return out;
}

export default async function metricsScrapeBench(): Promise<void> {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error("run through `npm run bench -- metrics-scrape` (it provides DATABASE_URL)");
  const { getPool, closePool } = await import("../core/db/pool");
  const { collectMetrics, METRICS_DETAIL_TAG, METRICS_WINDOW_SECONDS } = await import("../core/metrics/collect-metrics");
  const { readFleetRuns } = await import("../core/metrics/read-fleet-runs");
  const { getScheduleTroubleCounters } = await import("../core/metrics/get-schedule-trouble-counters");
  const { aggregateRuns } = await import("../core/metrics/aggregate-runs");
  const { getQueueSummary } = await import("../core/metrics/get-queue-summary");
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  const pool = getPool();
  const consoles: [string, BenchConsole][] = [];
  let token = "";
  if (HTTP) {
    buildConsoleIfStale(say);
    if (BASELINE_DIR) consoles.push(["before", await startBenchConsole(url, { cwd: BASELINE_DIR })]);
    consoles.push([BASELINE_DIR ? "after" : "this tree", await startBenchConsole(url)]);
    token = await createTestToken(url, "viewer");
  }
  const w = METRICS_WINDOW_SECONDS;
  const parts: [string, () => Promise<unknown>][] = [
    ["fleet model (readFleetRuns)", () => readFleetRuns(pool, w)],
    ["per-schedule trouble counters", () => getScheduleTroubleCounters(pool)],
    ["detail-tag aggregate (aggregateRuns)", () => aggregateRuns(pool, w, METRICS_DETAIL_TAG)],
    [
      "zombie detections",
      () =>
        pool.query(
          `SELECT s.name AS schedule, count(*)::int AS n
             FROM run_events e JOIN runs r ON r.id = e.run_id JOIN schedules s ON s.id = r.schedule_id
            WHERE e.type = 'zombie_detected' AND e.at > now() - make_interval(secs => $1)
            GROUP BY s.name`,
          [w],
        ),
    ],
    ["queue summary", () => getQueueSummary(pool, 30_000)],
    [
      "open alerts",
      () => pool.query(`SELECT kind, severity, count(*)::int AS n FROM alerts WHERE resolved_at IS NULL GROUP BY kind, severity`),
    ],
  ];
  // Every statement collectMetrics sends, with its median execution time on the server (EXPLAIN ANALYZE).
  const explained = new Map<string, number[]>();
  const explaining: Queryable = {
    async query(text: string | pg.QueryConfig, values?: unknown[]) {
      const sql = typeof text === "string" ? text : text.text;
      // A named (prepared) statement passes its values in the config (read-fleet-runs.ts).
      const args = typeof text === "string" ? values : (text.values ?? values);
      if (/^\s*(SELECT|WITH)/i.test(sql)) {
        const plan = await pool.query<{ "QUERY PLAN": string }>(`EXPLAIN (ANALYZE, TIMING OFF) ${sql}`, args);
        const text = plan.rows.map((r) => r["QUERY PLAN"]).join("\n");
        const ms = Number(/Execution Time: ([\d.]+)/.exec(text)?.[1] ?? NaN);
        const key = sql.replace(/\s+/g, " ").trim().slice(0, 90);
        explained.set(key, [...(explained.get(key) ?? []), ms]);
        if (process.env.METRICS_SCRAPE_PLANS === "true" && ms > 2) say(`plan (${ms} ms):\n${text}`);
      }
      return typeof text === "string" ? pool.query(text, values) : pool.query(text);
    },
  } as Queryable;
  const measure = async (label: string) => {
    // Right before measuring (after the VACUUM): every minute more of the paused schedules' fires come due.
    say(`${label}: settled as a worker would: ${await settleSeededLikeAWorker(pool)} due fires of the paused schedules recorded paused`);
    // Runs still planned though due: the seeded schedules are paused, so occurrences that came due while seeding stay
    // "planned", and the fleet read must read them (it reads the runs in flight from runs). Printed as the load they are.
    const { rows: due } = await c.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM runs WHERE state IN ('planned', 'queued', 'running', 'retrying') AND planned_at <= now() AND planned_at > now() - interval '1 hour'`,
    );
    say(`${label}: runs in flight (or due and still planned) in the window: ${due[0]!.n}`);
    explained.clear();
    for (let i = 0; i < 5; i++) await collectMetrics(explaining, { deadAfterMs: 30_000 });
    for (const [sql, ms] of explained) say(`${label}: server ${median(ms).toFixed(2)} ms: ${sql}`);
    for (const [name, fn] of parts) {
      const f = await time(fn);
      say(`${label}: ${name}: p50 ${f.p50.toFixed(1)} ms, p95 ${f.p95.toFixed(1)} ms (load ${load()})`);
    }
    let reg = await collectMetrics(pool, { deadAfterMs: 30_000 });
    const collect = await time(async () => (reg = await collectMetrics(pool, { deadAfterMs: 30_000 })));
    let text = "";
    const render = await time(async () => (text = await reg.metrics()));
    const lines = text.split("\n").filter((l) => l && !l.startsWith("#"));
    const bySeries = new Map<string, number>();
    for (const l of lines) {
      const name = l.replace(/[{ ].*$/, "");
      bySeries.set(name, (bySeries.get(name) ?? 0) + 1);
    }
    const top = [...bySeries].sort((a, b) => b[1] - a[1]).slice(0, 6);
    say(
      `${label}: collectMetrics (90-day totals cached) p50 ${collect.p50.toFixed(1)} ms, p95 ${collect.p95.toFixed(1)} ms; ` +
        `render p50 ${render.p50.toFixed(1)} ms, p95 ${render.p95.toFixed(1)} ms; ${(text.length / 1024).toFixed(1)} KB, ${lines.length} samples ` +
        `(${top.map(([n, k]) => `${n} ${k}`).join(", ")}) (load ${load()})`,
    );
    const http = consoles.length > 0 ? await measureHttp(label, consoles, token) : null;
    return { collect, render, bytes: text.length, http };
  };
  try {
    await seedScheduleHistory(c, { prefix: "scale-a-", schedules: SMALL, hours: HOURS });
    await settleSeededLikeAWorker(pool);
    await c.query("VACUUM ANALYZE");
    const a = await measure(`${SMALL} schedules`);
    await seedScheduleHistory(c, { prefix: "scale-b-", schedules: LARGE - SMALL, hours: HOURS, first: SMALL + 1 });
    await settleSeededLikeAWorker(pool);
    await c.query("VACUUM ANALYZE");
    const b = await measure(`${LARGE} schedules`);
    say(
      `collectMetrics ${SMALL} → ${LARGE}: p50 ×${(b.collect.p50 / a.collect.p50).toFixed(2)}, p95 ×${(b.collect.p95 / a.collect.p95).toFixed(2)}; ` +
        `render p50 ×${(b.render.p50 / a.render.p50).toFixed(2)}; size ${(a.bytes / 1024).toFixed(1)} → ${(b.bytes / 1024).toFixed(1)} KB`,
    );
    for (const [key, x] of a.http ?? []) {
      const y = b.http!.get(key)!;
      say(
        `HTTP ${key} ${SMALL} → ${LARGE}: p50 ${x.p50.toFixed(1)} → ${y.p50.toFixed(1)} ms (×${(y.p50 / x.p50).toFixed(2)}), ` +
          `p95 ${x.p95.toFixed(1)} → ${y.p95.toFixed(1)} ms (×${(y.p95 / x.p95).toFixed(2)}), wire ${(x.wire / 1024).toFixed(1)} → ${(y.wire / 1024).toFixed(1)} KB`,
      );
    }
    if (BASELINE_DIR) {
      for (const [label, f] of [[`${SMALL} schedules`, a.http!] as const, [`${LARGE} schedules`, b.http!] as const]) {
        for (const enc of ["gzip", "identity"]) {
          const x = f.get(`before, ${enc}`)!;
          const y = f.get(`after, ${enc}`)!;
          say(`${label}, ${enc}: after / before p50 ×${(y.p50 / x.p50).toFixed(2)}, p95 ×${(y.p95 / x.p95).toFixed(2)}`);
        }
      }
    }
  } finally {
    for (const [, x] of consoles) await terminate(x.proc);
    await c.end();
    await closePool();
  }
}

runBenchWhenMain(import.meta.url, "metrics-scrape.bench", () => metricsScrapeBench());
