// The timeline's forecast at fleet scale: SCHEDULES (1,000) schedules with HOURS (24) of one-a-minute history (seeded
// as e2e/timeline-perf.spec.ts seeds it), then given mixed triggers — every minute, every 5 minutes and hourly cron,
// 60 s and 300 s intervals — and unpaused, against the production console build (no worker: what is measured is
// the console's own cost). Prints, with the machine's load:
//   - GET /api/timeline for the next 24 h (all forecast: planFires for the 50 lanes in view) against the past 24 h
//     (all rows) as the page asks them (1,100 px plot, first 50 lanes), sample by sample interleaved so the machine's
//     load changing does not tilt the ratio: p50/p95 and answer size, and the ratios (goal ≤ 1.5×); the next 7 days too;
//   - navigation → marks drawn in Chromium for /timeline?window=next-24h (median of VISITS; goal < 1.5 s), and for
//     the past 24 h beside it.
// Calendars are linked to every tenth schedule when the calendars tables exist (FORECAST_BENCH_CALENDARS=false: none).
// `npm run bench -- forecast`. Sized by FORECAST_BENCH_SCHEDULES, FORECAST_BENCH_HOURS, FORECAST_BENCH_SAMPLES (20),
// FORECAST_BENCH_VISITS (3).
import fs from "node:fs";
import pg from "pg";
import { chromium } from "playwright";
import { terminate } from "../scripts/lib/processes";
import { createTestSession, createTestToken } from "../test/auth";
import { seedScheduleHistory } from "../test/seed-history";
import { buildConsoleIfStale, startBenchConsole } from "./lib/console";
import { runBenchWhenMain } from "./lib/main";
import { median, percentile } from "./lib/stats";

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const SCHEDULES = env("FORECAST_BENCH_SCHEDULES", 1000);
const HOURS = env("FORECAST_BENCH_HOURS", 24);
const SAMPLES = env("FORECAST_BENCH_SAMPLES", 20);
const VISITS = env("FORECAST_BENCH_VISITS", 3);
const CHROMIUM = process.env.VIGIL_CHROMIUM_PATH ?? "/usr/bin/chromium";
const CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync"];
const H = 3_600_000;

const say = (line: string) => process.stdout.write(`[forecast-timeline.bench] ${line}\n`);
const load = () => fs.readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");

/** Mixed triggers by schedule number, and the seeded pause lifted (the planner would plan them; none runs here). */
async function mixTriggers(c: pg.Client, ids: string[]): Promise<void> {
  await c.query(
    `UPDATE schedules s SET paused_at = NULL, paused_by = NULL, pause_reason = NULL,
            trigger = CASE m.n % 5
              WHEN 0 THEN '{"kind":"cron","cron":"* * * * *","timezone":"UTC","dst":{"gap":"shift","repeat":"once"}}'
              WHEN 1 THEN '{"kind":"interval","everySeconds":60}'
              WHEN 2 THEN '{"kind":"cron","cron":"*/5 * * * *","timezone":"Europe/Berlin","dst":{"gap":"shift","repeat":"once"}}'
              WHEN 3 THEN '{"kind":"interval","everySeconds":300}'
              ELSE '{"kind":"cron","cron":"0 * * * *","timezone":"America/New_York","dst":{"gap":"shift","repeat":"once"}}' END::jsonb
       FROM unnest($1::uuid[]) WITH ORDINALITY AS m(id, n) WHERE s.id = m.id`,
    [ids],
  );
}

/**
 * Links every tenth schedule to a calendar blocking weekends and a window each night, when the calendars tables exist
 * (they come with the calendars work).
 */
async function linkCalendars(c: pg.Client, ids: string[]): Promise<string> {
  if (process.env.FORECAST_BENCH_CALENDARS === "false") return "none (FORECAST_BENCH_CALENDARS=false)";
  const { rows } = await c.query<{ cal: string | null; link: string | null }>(
    `SELECT to_regclass('calendars')::text AS cal, to_regclass('schedule_calendars')::text AS link`,
  );
  if (!rows[0]?.cal || !rows[0]?.link) return "none (no calendars tables in this build)";
  try {
    const { rows: cal } = await c.query<{ id: string }>(
      `INSERT INTO calendars (name, timezone, rules) VALUES ('bench weekends and nights', 'Europe/Berlin',
              '{"dates":[],"weekdays":[0,6],"windows":[{"weekdays":[0,1,2,3,4,5,6],"start":"02:00","end":"04:00"}],"ranges":[]}'::jsonb)
       RETURNING id`,
    );
    const linked = ids.filter((_, i) => i % 10 === 0);
    await c.query(
      `INSERT INTO schedule_calendars (schedule_id, calendar_id, policy, position)
       SELECT id, $2, 'skip', 0 FROM unnest($1::uuid[]) AS t(id)`,
      [linked, cal[0]!.id],
    );
    return `${linked.length} schedules linked to one calendar (weekends and 02:00–04:00 nightly, skip)`;
  } catch (err) {
    return `none (could not link calendars: ${(err as Error).message})`;
  }
}

interface Figures {
  times: number[];
  bytes: number;
  body: {
    mode: string;
    runs: unknown[];
    buckets: unknown[];
    forecast?: { mode: string; marks: unknown[]; buckets: unknown[]; cut: unknown[] };
  };
}

async function getOnce(base: string, token: string, path: string, into: Figures): Promise<void> {
  const t = performance.now();
  const res = await fetch(base + path, { headers: { authorization: `Bearer ${token}` } });
  const text = await res.text();
  if (!res.ok) throw new Error(`GET ${path}: ${res.status} ${text.slice(0, 300)}`);
  into.times.push(performance.now() - t);
  into.bytes = Buffer.byteLength(text);
  into.body = JSON.parse(text) as Figures["body"];
}

function describe(f: Figures): string {
  const fc = f.body.forecast;
  return (
    `${f.body.mode}: ${f.body.runs.length} runs, ${f.body.buckets.length} buckets` +
    (fc ? `; forecast ${fc.mode}: ${fc.marks.length} marks, ${fc.buckets.length} buckets, ${fc.cut.length} lanes cut` : "")
  );
}

export default async function forecastTimelineBench(): Promise<void> {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error("run through `npm run bench -- forecast` (it provides DATABASE_URL)");
  buildConsoleIfStale(say);
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  fs.mkdirSync("artifacts", { recursive: true });
  const logFile = fs.createWriteStream("artifacts/forecast-timeline-console.log");
  let consoleProc: Awaited<ReturnType<typeof startBenchConsole>>["proc"] | null = null;
  try {
    say(`load before seeding: ${load()}`);
    let t = performance.now();
    // aheadHours 0: the planner writes rows only minutes ahead; the rest of the future is the forecast's.
    const seeded = await seedScheduleHistory(c, { prefix: "fc-", schedules: SCHEDULES, hours: HOURS, aheadHours: 0 });
    await mixTriggers(c, seeded.ids);
    const calendars = await linkCalendars(c, seeded.ids);
    await c.query("VACUUM ANALYZE");
    await c.query("CHECKPOINT");
    say(
      `seeded ${SCHEDULES} schedules × ${HOURS} h: ${seeded.runs.toLocaleString("en")} runs in ${((performance.now() - t) / 1000).toFixed(0)} s; ` +
        `triggers: every minute, 60 s interval, */5 Europe/Berlin, 300 s interval, hourly America/New_York (a fifth each); calendars: ${calendars}`,
    );
    const started = await startBenchConsole(url, { env: { VIGIL_LOG_FORMAT: "json" }, sink: logFile });
    consoleProc = started.proc;
    const base = started.base;
    const token = await createTestToken(url, "viewer");
    const { rows } = await c.query<{ now: Date }>("SELECT clock_timestamp() AS now");
    const now = rows[0]!.now.getTime();
    const step = Math.max(1000, Math.round((24 * H) / 1200));
    const at = Math.floor(now / step) * step;
    const q = (from: number, to: number) =>
      `/api/timeline?from=${new Date(from).toISOString()}&to=${new Date(to).toISOString()}&width=1100&laneOffset=0&laneLimit=50`;
    const reads: [string, string][] = [
      ["past 24 h", q(at - 24 * H, at)],
      ["next 24 h", q(at, at + 24 * H)],
      ["next 7 days", q(at, at + 7 * 24 * H)],
    ];
    const figs = reads.map((): Figures => ({ times: [], bytes: 0, body: { mode: "", runs: [], buckets: [] } }));
    // One warm-up each, then SAMPLES rounds asking each window in turn.
    for (let i = 0; i < reads.length; i++) await getOnce(base, token, reads[i]![1], { ...figs[i]!, times: [] });
    const l0 = load();
    for (let s = 0; s < SAMPLES; s++) for (let i = 0; i < reads.length; i++) await getOnce(base, token, reads[i]![1], figs[i]!);
    const l1 = load();
    say(`--- GET /api/timeline, first 50 of ${SCHEDULES} lanes, 1,100 px, ${SAMPLES} samples each interleaved; load ${l0} → ${l1}`);
    for (let i = 0; i < reads.length; i++) {
      const f = figs[i]!;
      say(
        `${reads[i]![0]}: p50 ${percentile(f.times, 50).toFixed(0)} ms, p95 ${percentile(f.times, 95).toFixed(0)} ms, ${(f.bytes / 1024).toFixed(1)} KB (${describe(f)})`,
      );
    }
    const [past, next] = [figs[0]!, figs[1]!];
    say(
      `next 24 h / past 24 h (goal ≤ 1.5×): p50 ×${(percentile(next.times, 50) / percentile(past.times, 50)).toFixed(2)}, ` +
        `p95 ×${(percentile(next.times, 95) / percentile(past.times, 95)).toFixed(2)}, size ×${(next.bytes / past.bytes).toFixed(2)}`,
    );

    const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    try {
      const session = await createTestSession(url, "viewer");
      const ctx = await browser.newContext({ viewport: { width: 1440, height: 900 } });
      await ctx.addCookies([{ name: "vigil_session", value: session.cookie, url: base }]);
      const page = await ctx.newPage();
      for (const [label, path] of [
        ["next 24 h", "/timeline?window=next-24h"],
        ["past 24 h", "/timeline?window=last-24h"],
      ] as const) {
        await page.goto(base + path);
        await page.getByTestId("timeline-chart").waitFor({ timeout: 60_000 });
        const drawn: number[] = [];
        for (let i = 0; i < VISITS; i++) {
          t = performance.now();
          await page.goto(base + path);
          await page.waitForFunction(() => performance.getEntriesByName("vigil:timeline-drawn").length > 0, null, {
            timeout: 60_000,
            polling: 50,
          });
          drawn.push(await page.evaluate(() => performance.getEntriesByName("vigil:timeline-drawn")[0]!.startTime));
        }
        const marks = await page
          .getByTestId("timeline-forecast-summary")
          .getAttribute("data-forecast")
          .catch(() => null);
        say(
          `${label}: navigation → marks drawn in Chromium, median of ${VISITS}: ${Math.round(median(drawn))} ms (${drawn.map((d) => Math.round(d)).join(", ")})` +
            `${marks !== null ? `; ${marks} forecast fires drawn` : ""}${label === "next 24 h" ? " (goal < 1500 ms)" : ""}; load ${load()}`,
        );
      }
    } finally {
      await browser.close();
    }
  } finally {
    if (consoleProc) await terminate(consoleProc);
    logFile.end();
    await c.end();
  }
}

runBenchWhenMain(import.meta.url, "forecast-timeline.bench", () => forecastTimelineBench());
