// The console at fleet scale: seeds SMALL (50) and then LARGE (1,000) schedules × HOURS (7) of
// one-a-minute history, the way e2e/timeline-perf.spec.ts seeds them, against the production console build
// (no worker: what is measured is the console's own cost), and prints at both sizes with the ratio:
//   - each polled read (p50/p95 and answer size): the timeline as the page asks for it (last 6 h + next 1 h,
//     a 1,100 px plot, the first 50 lanes), the schedules list's first page, the header's overview, a metrics
//     scrape; and each read's unchanged poll (If-None-Match → 304);
//   - the timeline's navigation → marks drawn in Chromium (median of VISITS);
//   - the CPU of Postgres + the console (from /proc) while 1 and then CONSOLES open consoles sit on their pages
//     (half /schedules, half /timeline) for CPU_SECONDS.
// `npm run bench -- console-scale`. Sized by CONSOLE_SCALE_SMALL, CONSOLE_SCALE_LARGE, CONSOLE_SCALE_HOURS,
// CONSOLE_SCALE_SAMPLES (20), CONSOLE_SCALE_VISITS (3), CONSOLE_SCALE_CONSOLES (10), CONSOLE_SCALE_CPU_SECONDS (60);
// CONSOLE_SCALE_READS_ONLY=true measures the API reads only (no Chromium: no drawn time, no CPU of open consoles).
// CONSOLE_SCALE_CPU_ONLY=true seeds only the LARGE fleet and measures only the open consoles' CPU (and requests/s).
// CONSOLE_SCALE_INTERLEAVED=true measures the API reads only, at both sizes in one sitting: SMALL schedules seeded into
// the bench's database and LARGE into a second one, a console on each, every read asked of both sample by sample
// (bench/lib/interleaved-reads.ts), so the ratio is not the machine's load changing between the two halves.
// CONSOLE_SCALE_COMPARE_POLLING=true measures the consoles a second time with their change stream (GET /api/changes)
// refused, i.e. polling every 2 s as before it existed, for a ratio in the same run. Before the consoles open, the
// cost with none open is printed (CONSOLE_SCALE_IDLE_SECONDS, 20).
import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import pg from "pg";
import { chromium, type Browser } from "playwright";
import { terminate } from "../scripts/lib/processes";
import { createTestSession, createTestToken } from "../test/auth";
import { median, percentile } from "./lib/stats";
import { runBenchWhenMain } from "./lib/main";
import { buildConsoleIfStale, startBenchConsole } from "./lib/console";
import { parentPid, treeCpuSeconds } from "./lib/proc-cpu";
import { seedScheduleHistory } from "../test/seed-history";
import { settleSeededLikeAWorker } from "./lib/settle-seeded";
import { measurePaired, type ReadTarget } from "./lib/interleaved-reads";
import { cloneTemplate } from "../test/postgres-for-tests";

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const SMALL = env("CONSOLE_SCALE_SMALL", 50);
const LARGE = env("CONSOLE_SCALE_LARGE", 1000);
const HOURS = env("CONSOLE_SCALE_HOURS", 7);
const SAMPLES = env("CONSOLE_SCALE_SAMPLES", 20);
const VISITS = env("CONSOLE_SCALE_VISITS", 3);
const CONSOLES = env("CONSOLE_SCALE_CONSOLES", 10);
const CPU_SECONDS = env("CONSOLE_SCALE_CPU_SECONDS", 60);
const READS_ONLY = process.env.CONSOLE_SCALE_READS_ONLY === "true";
const CPU_ONLY = process.env.CONSOLE_SCALE_CPU_ONLY === "true";
const COMPARE_POLLING = process.env.CONSOLE_SCALE_COMPARE_POLLING === "true";
const INTERLEAVED = process.env.CONSOLE_SCALE_INTERLEAVED === "true";
const IDLE_SECONDS = env("CONSOLE_SCALE_IDLE_SECONDS", 20);
const CHROMIUM = process.env.VIGIL_CHROMIUM_PATH ?? "/usr/bin/chromium";
const CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync"];

const say = (line: string) => process.stdout.write(`[console-scale.bench] ${line}\n`);

interface ReadFigures {
  p50: number;
  p95: number;
  bytes: number;
  p50Unchanged: number | null;
}

interface SizeFigures {
  reads: Map<string, ReadFigures>;
  drawn: number[];
  mode: string;
  cpu: { consoles: number; mode: "stream" | "polling"; pct: number; requests: number; seconds: number; byPath: Map<string, number> }[];
}

async function measureRead(base: string, token: string, path: string): Promise<ReadFigures> {
  const headers = { authorization: `Bearer ${token}` };
  const times: number[] = [];
  let bytes = 0;
  let etag = "";
  for (let i = 0; i <= SAMPLES; i++) {
    const t = performance.now();
    const res = await fetch(base + path, { headers });
    const body = await res.arrayBuffer();
    if (!res.ok) throw new Error(`GET ${path}: ${res.status} ${Buffer.from(body).toString().slice(0, 300)}`);
    if (i > 0) times.push(performance.now() - t);
    bytes = body.byteLength;
    etag = res.headers.get("etag") ?? "";
  }
  let p50Unchanged: number | null = null;
  if (etag) {
    const unchanged: number[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      const t = performance.now();
      const res: Response = await fetch(base + path, { headers: { ...headers, "if-none-match": etag } });
      await res.arrayBuffer();
      if (res.status === 304) unchanged.push(performance.now() - t);
      else etag = res.headers.get("etag") ?? etag;
    }
    p50Unchanged = unchanged.length > 0 ? percentile(unchanged, 50) : null;
  }
  return { p50: percentile(times, 50), p95: percentile(times, 95), bytes, p50Unchanged };
}

/**
 * A scrape as Prometheus sends it (`Accept-Encoding: gzip`, its default) or uncompressed (`identity`), over node:http so
 * nothing is decompressed on this side: time to the last byte and the bytes on the wire.
 */
function scrapeOnce(base: string, token: string, encoding: "gzip" | "identity"): Promise<{ ms: number; bytes: number; encoding: string }> {
  return new Promise((resolve, reject) => {
    const t = performance.now();
    const req = http.get(`${base}/api/metrics`, { headers: { authorization: `Bearer ${token}`, "accept-encoding": encoding } }, (res) => {
      let bytes = 0;
      res.on("data", (b: Buffer) => (bytes += b.length));
      res.on("end", () =>
        res.statusCode === 200
          ? resolve({ ms: performance.now() - t, bytes, encoding: String(res.headers["content-encoding"] ?? "none") })
          : reject(new Error(`GET /api/metrics: ${res.statusCode}`)),
      );
      res.on("error", reject);
    });
    req.on("error", reject);
  });
}

async function measureScrape(base: string, token: string, encoding: "gzip" | "identity"): Promise<ReadFigures> {
  const get = () => scrapeOnce(base, token, encoding);
  const first = await get();
  const times: number[] = [];
  for (let i = 0; i < SAMPLES; i++) times.push((await get()).ms);
  if (first.encoding !== (encoding === "gzip" ? "gzip" : "none")) say(`metrics asked ${encoding}, answered ${first.encoding}`);
  return { p50: percentile(times, 50), p95: percentile(times, 95), bytes: first.bytes, p50Unchanged: null };
}

let settlePool: pg.Pool | null = null;
/** The planner's sweep and the folds, as a worker would have done them by now (bench/lib/settle-seeded.ts). */
async function settle(c: pg.Client): Promise<void> {
  const swept = await settleSeededLikeAWorker(settlePool!);
  const { rows } = await c.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM runs WHERE state IN ('planned', 'queued', 'running', 'retrying') AND planned_at <= now() AND planned_at > now() - interval '1 hour'`,
  );
  say(`settled as a worker would: ${swept} due fires of paused schedules recorded paused; ${rows[0]!.n} runs in flight in the last hour`);
}

async function dbNowMs(c: pg.Client): Promise<number> {
  const { rows } = await c.query<{ now: Date }>("SELECT clock_timestamp() AS now");
  return rows[0]!.now.getTime();
}

async function measureSize(
  label: string,
  cpuOnly: boolean,
  c: pg.Client,
  base: string,
  token: string,
  browser: Browser | null,
  cookie: { name: string; value: string; url: string },
  pids: { console: number; postgres: number },
): Promise<SizeFigures> {
  const now = await dbNowMs(c);
  const H = 3_600_000;
  const step = Math.max(1000, Math.round((7 * H) / 1200));
  const to = Math.floor((now + H) / step) * step;
  const from = to - 7 * H;
  const timeline = `/api/timeline?from=${new Date(from).toISOString()}&to=${new Date(to).toISOString()}&width=1100&laneOffset=0&laneLimit=50`;
  const reads = new Map<string, ReadFigures>();
  if (cpuOnly && browser) return { reads, drawn: [], mode: "", cpu: await measureCpu(label, base, browser, cookie, pids) };
  for (const [name, path] of [
    ["GET /api/timeline (6 h + 1 h, 50 lanes)", timeline],
    ["GET /api/schedules (first page)", "/api/schedules?limit=50"],
    ["GET /api/overview", "/api/overview"],
    ["GET /api/metrics", "/api/metrics"],
    ["GET /api/metrics, Accept-Encoding: gzip (Prometheus; size on the wire)", "gzip"],
    ["GET /api/metrics, Accept-Encoding: identity", "identity"],
  ] as const) {
    // The fires that came due since the seeding are swept as a worker's planner would have (bench/lib/settle-seeded.ts).
    if (path === "/api/metrics") await settle(c);
    const f = path === "gzip" || path === "identity" ? await measureScrape(base, token, path) : await measureRead(base, token, path);
    reads.set(name, f);
    say(
      `${label}: ${name}: p50 ${f.p50.toFixed(0)} ms, p95 ${f.p95.toFixed(0)} ms, ${(f.bytes / 1024).toFixed(1)} KB` +
        (f.p50Unchanged !== null ? `; unchanged (304) p50 ${f.p50Unchanged.toFixed(1)} ms` : "") +
        ` (load ${fs.readFileSync("/proc/loadavg", "utf8").split(" ")[0]})`,
    );
  }
  const mode = await (async () => {
    const res = await fetch(base + timeline, { headers: { authorization: `Bearer ${token}` } });
    const body = (await res.json()) as { mode: string; lanes: { total: number }; buckets: unknown[]; runs: unknown[] };
    return `${body.mode} (${body.runs.length} runs, ${body.buckets.length} buckets, ${body.lanes.total} lanes in all)`;
  })();

  if (!browser) return { reads, drawn: [], mode, cpu: [] };
  // Navigation → marks drawn, in Chromium.
  const ctx = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  await ctx.addCookies([cookie]);
  const page = await ctx.newPage();
  await page.goto(`${base}/timeline`);
  await page.getByTestId("timeline-chart").waitFor({ timeout: 60_000 });
  const drawn: number[] = [];
  for (let i = 0; i < VISITS; i++) {
    await page.goto(`${base}/timeline`);
    await page.waitForFunction(() => performance.getEntriesByName("vigil:timeline-drawn").length > 0, null, {
      timeout: 60_000,
      polling: 50,
    });
    drawn.push(await page.evaluate(() => performance.getEntriesByName("vigil:timeline-drawn")[0]!.startTime));
  }
  const chartMode = await page.getByTestId("timeline-chart").getAttribute("data-mode");
  say(
    `${label}: timeline navigation → marks drawn: ${drawn.map((d) => `${Math.round(d)} ms`).join(", ")} (median ${Math.round(median(drawn))} ms; chart ${chartMode}; API answer ${mode})`,
  );
  await ctx.close();
  return { reads, drawn, mode, cpu: await measureCpu(label, base, browser, cookie, pids) };
}

/** CPU of Postgres + console while 1 and then CONSOLES consoles sit open (half /schedules, half /timeline). */
async function measureCpu(
  label: string,
  base: string,
  browser: Browser,
  cookie: { name: string; value: string; url: string },
  pids: { console: number; postgres: number },
): Promise<SizeFigures["cpu"]> {
  const cpu: SizeFigures["cpu"] = [];
  {
    // Warm the console first (route bundles loaded and compiled on their first request, the first reads' plans):
    // what is measured is the steady cost of open consoles, not the console's start-up.
    const cx = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    await cx.addCookies([cookie]);
    const p = await cx.newPage();
    for (const path of ["/schedules", "/timeline", "/schedules"]) {
      await p.goto(`${base}${path}`, { timeout: 120_000 });
      // (Not "networkidle": the page's change stream stays open.) Its data is read once the stream is live.
      await p.locator('html[data-live-updates="stream"]').waitFor({ state: "attached", timeout: 60_000 });
      await p.waitForTimeout(3000);
    }
    await cx.close();
  }
  {
    // What Postgres and the console cost with no console open (background writer, autovacuum, timers), for reference.
    const roots = [pids.console, pids.postgres];
    const c0 = treeCpuSeconds(roots);
    const t0 = performance.now();
    await new Promise((r) => setTimeout(r, IDLE_SECONDS * 1000));
    const pct = ((treeCpuSeconds(roots) - c0) / ((performance.now() - t0) / 1000)) * 100;
    say(
      `${label}: no console open for ${IDLE_SECONDS} s: Postgres + console ${pct.toFixed(1)} % of a core; load ${fs.readFileSync("/proc/loadavg", "utf8").trim()}`,
    );
  }
  const runs = COMPARE_POLLING
    ? ([1, CONSOLES] as const).flatMap((n) => (["stream", "polling"] as const).map((mode) => ({ n, mode })))
    : [1, CONSOLES].map((n) => ({ n, mode: "stream" as const }));
  for (const { n, mode } of runs) {
    const contexts = [];
    let requests = 0;
    const byPath = new Map<string, number>();
    for (let i = 0; i < n; i++) {
      const cx = await browser.newContext({ viewport: { width: 1440, height: 900 } });
      await cx.addCookies([cookie]);
      // Polling mode: the change stream is refused, so the console polls every 2 s as it did before the stream.
      if (mode === "polling") await cx.route("**/api/changes", (r) => r.abort());
      const p = await cx.newPage();
      p.on("request", (r) => {
        if (!r.url().includes("/api/")) return;
        requests++;
        const path = new URL(r.url()).pathname;
        byPath.set(path, (byPath.get(path) ?? 0) + 1);
      });
      // Generous: ten consoles polling every 2 s on a loaded machine can take a while to answer a navigation.
      await p.goto(`${base}${i % 2 === 0 ? "/schedules" : "/timeline"}`, { timeout: 120_000 });
      contexts.push(cx);
    }
    // Settle: first loads done, then measure the steady polling.
    await new Promise((r) => setTimeout(r, 5000));
    requests = 0;
    byPath.clear();
    const roots = [pids.console, pids.postgres];
    const c0 = treeCpuSeconds(roots);
    const t0 = performance.now();
    await new Promise((r) => setTimeout(r, CPU_SECONDS * 1000));
    const used = treeCpuSeconds(roots) - c0;
    const elapsed = (performance.now() - t0) / 1000;
    const pct = (used / elapsed) * 100;
    cpu.push({ consoles: n, mode, pct, requests, seconds: elapsed, byPath: new Map(byPath) });
    const paths = [...byPath].sort((a, b) => b[1] - a[1]).map(([p, k]) => `${p} ${k}`);
    say(
      `${label}: ${n} open console(s) (${mode}) for ${elapsed.toFixed(0)} s: Postgres + console ${pct.toFixed(1)} % of a core, ` +
        `${requests} API requests (${(requests / elapsed).toFixed(2)}/s: ${paths.join(", ")}); load ${fs.readFileSync("/proc/loadavg", "utf8").trim()}`,
    );
    for (const cx of contexts) await cx.close();
  }
  return cpu;
}

/**
 * CONSOLE_SCALE_BUSY=true: the open consoles' CPU with a busy fleet instead of an idle one. The LARGE schedules are
 * seeded as usual, then unpaused and fired by a real worker (each one a minute, cron `* * * * *`: a thousand runs at
 * the top of every minute, so the change stream names "runs" about every 2 s and every open page refetches). The
 * worker's own load on Postgres is measured first with no console open over the same whole-minute window; the
 * consoles' cost is what 1 and CONSOLES open consoles add to it. Prints and returns nothing else.
 */
async function measureBusyFleet(
  c: pg.Client,
  url: string,
  base: string,
  browser: Browser,
  cookie: { name: string; value: string; url: string },
  pids: { console: number; postgres: number },
): Promise<void> {
  const { startWorker } = await import("../test/worker-process");
  const { waitFor } = await import("../test/wait-for");
  const load = () => fs.readFileSync("/proc/loadavg", "utf8").trim();
  const t = performance.now();
  const seeded = await seedScheduleHistory(c, { prefix: "scale-busy-", schedules: LARGE, hours: HOURS });
  await c.query("SELECT vigil_fleet_fold()");
  await c.query("VACUUM ANALYZE");
  await c.query("CHECKPOINT");
  say(
    `busy: seeded ${LARGE} schedules × ${HOURS} h: ${seeded.runs.toLocaleString("en")} runs in ${((performance.now() - t) / 1000).toFixed(0)} s`,
  );
  // Seeded paused (and some as http.request, which needs a payload): all fire demo.noop from now on.
  await c.query(
    `UPDATE schedules SET paused_at = NULL, paused_by = NULL, pause_reason = NULL, handler = 'demo.noop' WHERE name LIKE 'scale-busy-%'`,
  );
  const worker = startWorker(url, { VIGIL_SECRET_KEY: crypto.randomBytes(32).toString("base64") });
  const finishedSince = async (since: number) =>
    Number(
      (await c.query<{ n: string }>(`SELECT count(*) AS n FROM runs WHERE finished_at >= $1 AND state <> 'planned'`, [new Date(since)]))
        .rows[0]!.n,
    );
  try {
    await worker.workerId();
    const firstFire = await dbNowMs(c);
    // Twice: the first minute also settles what fell due while seeding (misfires, catch-up), which would inflate the
    // worker-only figure; from the second on, the fleet runs at its steady pace.
    for (let minute = 0; minute < 2; minute++) {
      const since = minute === 0 ? firstFire : await dbNowMs(c);
      await waitFor(`the worker to run a minute's ${LARGE} fires`, async () => (await finishedSince(since)) >= LARGE * 0.9, {
        timeoutMs: 180_000,
        intervalMs: 1000,
      });
    }
    // The worker alone (no console open), over the same whole-minute window the consoles are measured over.
    const roots = [pids.console, pids.postgres];
    const from = await dbNowMs(c);
    const c0 = treeCpuSeconds(roots);
    const w0 = treeCpuSeconds([worker.pid]);
    const t0 = performance.now();
    await new Promise((r) => setTimeout(r, CPU_SECONDS * 1000));
    const elapsed = (performance.now() - t0) / 1000;
    const base0 = ((treeCpuSeconds(roots) - c0) / elapsed) * 100;
    const workerPct = ((treeCpuSeconds([worker.pid]) - w0) / elapsed) * 100;
    const runsPerMin = ((await finishedSince(from)) / elapsed) * 60;
    say(
      `busy: worker firing, no console open for ${elapsed.toFixed(0)} s: Postgres + console ${base0.toFixed(1)} % of a core (worker ${workerPct.toFixed(1)} %), ` +
        `${runsPerMin.toFixed(0)} runs finished/min; load ${load()}`,
    );
    const fromConsoles = await dbNowMs(c);
    const cpu = await measureCpu(`${LARGE} schedules, busy fleet`, base, browser, cookie, pids);
    const consolesRunsPerMin = ((await finishedSince(fromConsoles)) / ((await dbNowMs(c)) - fromConsoles)) * 60_000;
    say(`--- ${LARGE} schedules, busy fleet (goal: 1 console < 3 %, ${CONSOLES} < 15 % of a core, above the fleet's own cost)`);
    for (const x of cpu) {
      say(
        `busy: ${x.consoles} open console(s) (${x.mode}): Postgres + console ${x.pct.toFixed(1)} % of a core, ` +
          `${(x.pct - base0).toFixed(1)} % above the worker-only ${base0.toFixed(1)} %; ${x.requests} API requests in ${x.seconds.toFixed(0)} s ` +
          `(${(x.requests / x.seconds).toFixed(2)}/s); fleet ${consolesRunsPerMin.toFixed(0)} runs/min; load ${load()}`,
      );
    }
  } finally {
    await worker.stop();
  }
}

/** CONSOLE_SCALE_INTERLEAVED=true: SMALL and LARGE in two databases, a console on each, every read paired sample by sample. */
async function measureInterleaved(c: pg.Client, small: { url: string; base: string }, logFile: NodeJS.WritableStream): Promise<void> {
  const admin = process.env.VIGIL_BENCH_ADMIN_URL;
  if (!admin) throw new Error("CONSOLE_SCALE_INTERLEAVED needs the bench runner's VIGIL_BENCH_ADMIN_URL (npm run bench -- console-scale)");
  const load = () => fs.readFileSync("/proc/loadavg", "utf8").split(" ")[0];
  const largeUrl = await cloneTemplate(admin, "console_scale_large");
  const cl = new pg.Client({ connectionString: largeUrl });
  await cl.connect();
  const poolL = new pg.Pool({ connectionString: largeUrl, max: 2 });
  const sizes = [
    { label: `${SMALL} schedules`, c, pool: settlePool!, n: SMALL, prefix: "scale-a-" },
    { label: `${LARGE} schedules`, c: cl, pool: poolL, n: LARGE, prefix: "scale-b-" },
  ];
  let large: Awaited<ReturnType<typeof startBenchConsole>> | null = null;
  try {
    for (const x of sizes) {
      const t = performance.now();
      const seeded = await seedScheduleHistory(x.c, { prefix: x.prefix, schedules: x.n, hours: HOURS });
      await settleSeededLikeAWorker(x.pool);
      await x.c.query("VACUUM ANALYZE");
      await x.c.query("CHECKPOINT");
      say(`seeded ${x.label} × ${HOURS} h: ${seeded.runs.toLocaleString("en")} runs in ${((performance.now() - t) / 1000).toFixed(0)} s`);
    }
    large = await startBenchConsole(largeUrl, { env: { VIGIL_LOG_FORMAT: "json" }, sink: logFile });
    const targets: [ReadTarget, ReadTarget] = [
      { label: sizes[0]!.label, base: small.base, token: await createTestToken(small.url, "viewer") },
      { label: sizes[1]!.label, base: large.base, token: await createTestToken(largeUrl, "viewer") },
    ];
    const now = await dbNowMs(c);
    const H = 3_600_000;
    const step = Math.max(1000, Math.round((7 * H) / 1200));
    const to = Math.floor((now + H) / step) * step;
    const timeline = `/api/timeline?from=${new Date(to - 7 * H).toISOString()}&to=${new Date(to).toISOString()}&width=1100&laneOffset=0&laneLimit=50`;
    say(`--- ${SMALL} → ${LARGE} schedules, interleaved sample by sample (${SAMPLES} each; goal: every read ≤ ×2; sizes on the wire)`);
    for (const [name, path, encoding] of [
      ["GET /api/timeline (6 h + 1 h, 50 lanes)", timeline, undefined],
      ["GET /api/schedules (first page)", "/api/schedules?limit=50", undefined],
      ["GET /api/overview", "/api/overview", undefined],
      ["GET /api/metrics, Accept-Encoding: gzip (Prometheus)", "/api/metrics", "gzip"],
      ["GET /api/metrics, Accept-Encoding: identity", "/api/metrics", "identity"],
    ] as const) {
      // The fires that came due since the seeding are swept as a worker's planner would have, in both.
      if (path === "/api/metrics") for (const x of sizes) await settleSeededLikeAWorker(x.pool);
      const l0 = load();
      const f = await measurePaired(targets, path, SAMPLES, encoding);
      say(
        `${name}: p50 ${f.p50[0].toFixed(0)} → ${f.p50[1].toFixed(0)} ms (×${(f.p50[1] / f.p50[0]).toFixed(2)}), ` +
          `p95 ${f.p95[0].toFixed(0)} → ${f.p95[1].toFixed(0)} ms (×${(f.p95[1] / f.p95[0]).toFixed(2)}), ` +
          `size ${(f.bytes[0] / 1024).toFixed(1)} → ${(f.bytes[1] / 1024).toFixed(1)} KB; load ${l0} → ${load()}`,
      );
    }
  } finally {
    if (large) await terminate(large.proc);
    await poolL.end();
    await cl.end();
  }
}

async function postmasterPid(c: pg.Client): Promise<number> {
  const { rows } = await c.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE backend_type = 'checkpointer'`);
  const pid = parentPid(rows[0]!.pid);
  if (!pid) throw new Error("could not find the postmaster");
  return pid;
}

export default async function consoleScaleBench(): Promise<void> {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error("run through `npm run bench -- console-scale` (it provides DATABASE_URL)");
  buildConsoleIfStale(say);
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  settlePool = new pg.Pool({ connectionString: url, max: 2 });
  fs.mkdirSync("artifacts", { recursive: true });
  const logFile = fs.createWriteStream("artifacts/console-scale-console.log");
  const { proc: consoleProc, base } = await startBenchConsole(url, { env: { VIGIL_LOG_FORMAT: "json" }, sink: logFile });
  let browser: Browser | null = null;
  try {
    const token = await createTestToken(url, "viewer");
    const session = await createTestSession(url, "viewer");
    const cookie = { name: "vigil_session", value: session.cookie, url: base };
    const pids = { console: consoleProc.child.pid!, postgres: await postmasterPid(c) };
    if (!READS_ONLY && !INTERLEAVED) browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    if (process.env.CONSOLE_SCALE_BUSY === "true") return await measureBusyFleet(c, url, base, browser!, cookie, pids);
    if (INTERLEAVED) return await measureInterleaved(c, { url, base }, logFile);

    if (CPU_ONLY) {
      const t = performance.now();
      const all = await seedScheduleHistory(c, { prefix: "scale-b-", schedules: LARGE, hours: HOURS });
      await settle(c); // the sweep and the folds a worker does every 2 s (this bench runs none)
      await c.query("VACUUM ANALYZE");
      await c.query("CHECKPOINT");
      say(
        `seeded ${LARGE} schedules × ${HOURS} h: ${all.runs.toLocaleString("en")} runs in ${((performance.now() - t) / 1000).toFixed(0)} s`,
      );
      const b = await measureSize(`${LARGE} schedules`, true, c, base, token, browser, cookie, pids);
      say(`--- ${LARGE} schedules, CPU only (goal: 1 console < 3 %, ${CONSOLES} < 15 % of a core)`);
      for (const x of b.cpu.filter((y) => y.mode === "polling")) {
        const streamed = b.cpu.find((y) => y.mode === "stream" && y.consoles === x.consoles)!;
        say(
          `${x.consoles} console(s): stream / polling CPU ×${(streamed.pct / x.pct).toFixed(2)}, requests ×${(streamed.requests / x.requests).toFixed(2)}`,
        );
      }
      for (const x of b.cpu) {
        say(
          `CPU, ${x.consoles} open console(s) (${x.mode}): ${x.pct.toFixed(1)} % of a core, ${x.requests} API requests in ${x.seconds.toFixed(0)} s (${(x.requests / x.seconds).toFixed(2)}/s)`,
        );
      }
      return;
    }
    let t = performance.now();
    const small = await seedScheduleHistory(c, { prefix: "scale-a-", schedules: SMALL, hours: HOURS });
    await settle(c); // the sweep and the folds a worker does every 2 s (this bench runs none)
    await c.query("VACUUM ANALYZE");
    await c.query("CHECKPOINT");
    say(
      `seeded ${SMALL} schedules × ${HOURS} h: ${small.runs.toLocaleString("en")} runs in ${((performance.now() - t) / 1000).toFixed(0)} s`,
    );
    const a = await measureSize(`${SMALL} schedules`, false, c, base, token, browser, cookie, pids);

    t = performance.now();
    const more = await seedScheduleHistory(c, { prefix: "scale-b-", schedules: LARGE - SMALL, hours: HOURS, first: SMALL + 1 });
    await settle(c); // the sweep and the folds a worker does every 2 s (this bench runs none)
    await c.query("VACUUM ANALYZE");
    await c.query("CHECKPOINT");
    say(
      `seeded ${LARGE - SMALL} more schedules: ${(small.runs + more.runs).toLocaleString("en")} runs in all (${((performance.now() - t) / 1000).toFixed(0)} s)`,
    );
    const b = await measureSize(`${LARGE} schedules`, false, c, base, token, browser, cookie, pids);

    say(`--- ${SMALL} → ${LARGE} schedules (goal: every read ≤ ×2; drawn < 1.5 s; 1 console < 3 %, ${CONSOLES} < 15 % of a core)`);
    for (const [name, x] of a.reads) {
      const y = b.reads.get(name)!;
      say(
        `${name}: p50 ${x.p50.toFixed(0)} → ${y.p50.toFixed(0)} ms (×${(y.p50 / x.p50).toFixed(2)}), p95 ${x.p95.toFixed(0)} → ${y.p95.toFixed(0)} ms (×${(y.p95 / x.p95).toFixed(2)}), ` +
          `size ${(x.bytes / 1024).toFixed(1)} → ${(y.bytes / 1024).toFixed(1)} KB (×${(y.bytes / x.bytes).toFixed(2)})`,
      );
    }
    if (READS_ONLY) return;
    say(
      `timeline drawn (median): ${Math.round(median(a.drawn))} → ${Math.round(median(b.drawn))} ms (×${(median(b.drawn) / median(a.drawn)).toFixed(2)})`,
    );
    for (let i = 0; i < a.cpu.length; i++) {
      say(
        `CPU, ${a.cpu[i]!.consoles} open console(s) (${a.cpu[i]!.mode}): ${a.cpu[i]!.pct.toFixed(1)} % → ${b.cpu[i]!.pct.toFixed(1)} % of a core (${a.cpu[i]!.requests} / ${b.cpu[i]!.requests} API requests in ${CPU_SECONDS} s: ` +
          `${(a.cpu[i]!.requests / a.cpu[i]!.seconds).toFixed(2)} / ${(b.cpu[i]!.requests / b.cpu[i]!.seconds).toFixed(2)} per s)`,
      );
    }
  } finally {
    await browser?.close();
    await terminate(consoleProc);
    logFile.end();
    await settlePool?.end();
    await c.end();
  }
}

runBenchWhenMain(import.meta.url, "console-scale.bench", () => consoleScaleBench());
