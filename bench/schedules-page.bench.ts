// The schedules page at scale: GET /api/schedules for one page of 50, at 5,000 schedules with
// history, against a bare indexed SELECT of the same 50 schedule rows, in the same run, as a ratio. Each read
// pattern the page makes is timed: the first page by name, a middle page, a search, a tag filter, and the two
// sorts that need the read models (most trouble first, worst last outcome first), plus a 304 poll.
// `npm run bench -- schedules-page`; SCHEDULES_PAGE_SCHEDULES (5000) and SCHEDULES_PAGE_HOURS (1) size it.
import pg from "pg";
import { percentile } from "./lib/stats";
import { runBenchWhenMain } from "./lib/main";
import { seedScheduleHistory } from "../test/seed-history";

const SAMPLES = Number(process.env.SCHEDULES_PAGE_SAMPLES ?? 60);

async function time(n: number, fn: () => Promise<unknown>): Promise<number[]> {
  await fn();
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn();
    out.push(performance.now() - t);
  }
  return out;
}

export default async function schedulesPageBench(): Promise<void> {
  const say = (line: string) => process.stdout.write(`[schedules-page.bench] ${line}\n`);
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error("run through `npm run bench -- schedules-page` (it provides DATABASE_URL)");
  const count = Number(process.env.SCHEDULES_PAGE_SCHEDULES ?? 5000);
  const hours = Number(process.env.SCHEDULES_PAGE_HOURS ?? 1);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const { callRoute } = await import("../test/call-route");
  const { createTestToken } = await import("../test/auth");
  const route = await import("../app/api/schedules/route");
  const { closePool } = await import("../core/db/pool");
  try {
    const t0 = performance.now();
    const { runs } = await seedScheduleHistory(client, { prefix: "page-", schedules: count, hours, aheadHours: 0.25 });
    await client.query("VACUUM ANALYZE");
    say(
      `${count} schedules, ${runs.toLocaleString("en")} runs (${hours} h at 1/min) seeded in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
    );
    const token = await createTestToken(url, "viewer");
    const bare = (offset: number) =>
      client.query(`SELECT * FROM schedules WHERE deleted_at IS NULL ORDER BY name LIMIT 50 OFFSET $1`, [offset]);
    const api = async (qs: string, headers: Record<string, string> = {}) => {
      const r = await callRoute(route.GET, { token, path: `/api/schedules?${qs}`, headers });
      if (r.status !== 200 && r.status !== 304) throw new Error(`GET /api/schedules?${qs}: ${r.status} ${JSON.stringify(r.body)}`);
      return r;
    };
    const middle = Math.floor(count / 2 / 50) * 50;
    const baseline = await time(SAMPLES, () => bare(middle));
    const base95 = percentile(baseline, 95);
    say(
      `bare indexed SELECT of one page (50 rows, ORDER BY name OFFSET ${middle}): p50 ${percentile(baseline, 50).toFixed(1)} ms, p95 ${base95.toFixed(1)} ms`,
    );
    const first = await api("limit=50");
    say(`first page: ${first.body.schedules.length} of ${first.body.total} schedules, ${JSON.stringify(first.body).length} bytes`);
    const cases: [string, string][] = [
      ["first page by name", "limit=50"],
      [`page at offset ${middle}`, `limit=50&offset=${middle}`],
      ["search 'page-012'", "limit=50&q=page-012"],
      ["tag payments", "limit=50&tag=payments"],
      ["most trouble first", "limit=50&sort=trouble"],
      ["worst last outcome first", "limit=50&sort=last_state"],
      ["next fire first", "limit=50&sort=next_fire"],
    ];
    for (const [label, qs] of cases) {
      const xs = await time(SAMPLES, () => api(qs));
      const p95 = percentile(xs, 95);
      say(
        `API ${label}: p50 ${percentile(xs, 50).toFixed(1)} ms, p95 ${p95.toFixed(1)} ms — ×${(p95 / base95).toFixed(1)} the bare SELECT's p95`,
      );
    }
    const etagRes = await fetchEtag(route.GET, token);
    const unchanged = await time(SAMPLES, () => api("limit=50", { "if-none-match": etagRes }));
    say(
      `API unchanged poll (If-None-Match → 304): p50 ${percentile(unchanged, 50).toFixed(1)} ms, p95 ${percentile(unchanged, 95).toFixed(1)} ms`,
    );
  } finally {
    await closePool();
    await client.end();
  }
}

/** The ETag of the first page, read from the route's real answer. */
async function fetchEtag(handler: Parameters<typeof import("../test/call-route").callRoute>[0], token: string): Promise<string> {
  const { NextRequest } = await import("next/server");
  const res = await handler(
    new NextRequest(new URL("/api/schedules?limit=50", "http://localhost:3000"), { headers: { authorization: `Bearer ${token}` } }),
    {
      params: Promise.resolve({}),
    },
  );
  return res.headers.get("etag") ?? "";
}

runBenchWhenMain(import.meta.url, "schedules-page.bench", () => schedulesPageBench());
