// The fleet load forecast at scale: GET /api/load-forecast at 10,000 schedules (goal: p95 < 1 s), for the
// whole fleet over 24 h and 7 days, one concurrency group and one tag. The fleet is a mix an operator would recognise:
// hourly and daily crons at fixed or varied minutes in three zones, */5 and */15 crons, intervals of 45 s to 2 h
// created at random moments (every one a different phase), one-offs; 30 % in 20 concurrency groups, with three
// finished runs each so the bunching estimate has durations. "cold" forgets the cached run durations before each
// call (what the first request after a minute pays); "warm" is a console polling the page with nothing changed;
// "edited" edits one schedule before each call, so the plan inputs are read and planned again (a fleet always changing).
// `npm run bench -- forecast` (with forecast-timeline); LOAD_FORECAST_SCHEDULES (10000) sizes it.
import fs from "node:fs";
import pg from "pg";
import { percentile } from "./lib/stats";
import { runBenchWhenMain } from "./lib/main";

const SAMPLES = Number(process.env.LOAD_FORECAST_SAMPLES ?? 20);
const ZONES = ["UTC", "Europe/Berlin", "America/New_York"];

function rng(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
}

function fleet(count: number) {
  const rand = rng(25);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;
  const rows: { name: string; trigger: object; zone: string; createdAgoS: number; group: string | null; tags: string }[] = [];
  for (let i = 0; i < count; i++) {
    const zone = pick(ZONES);
    const cron = (expr: string) => ({ kind: "cron", cron: expr, timezone: zone, dst: { gap: "shift", repeat: "once" } });
    const r = rand();
    const trigger =
      r < 0.15
        ? cron("0 * * * *")
        : r < 0.3
          ? cron(`${Math.floor(rand() * 60)} * * * *`)
          : r < 0.45
            ? cron(`${Math.floor(rand() * 60)} ${Math.floor(rand() * 24)} * * *`)
            : r < 0.52
              ? cron("0 0 * * *")
              : r < 0.57
                ? cron("*/5 * * * *")
                : r < 0.6
                  ? cron("*/15 * * * 1-5")
                  : r < 0.95
                    ? { kind: "interval", everySeconds: pick([45, 60, 90, 300, 600, 900, 1800, 3600, 7200]) }
                    : { kind: "once", at: new Date(Date.now() + Math.floor(rand() * 6 * 86_400_000) + 600_000).toISOString() };
    rows.push({
      name: `load-${String(i).padStart(5, "0")}`,
      trigger,
      zone: trigger.kind === "cron" ? zone : "UTC",
      createdAgoS: Math.floor(rand() * 30 * 86_400) + 3600,
      group: rand() < 0.3 ? `group-${Math.floor(rand() * 20)}` : null,
      tags: [`team-${Math.floor(rand() * 10)}`, ...(rand() < 0.2 ? ["critical"] : [])].join(","),
    });
  }
  return rows;
}

export default async function forecastLoadBench(): Promise<void> {
  const say = (line: string) => process.stdout.write(`[forecast-load.bench] ${line}\n`);
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error("run through `npm run bench -- forecast` (it provides DATABASE_URL)");
  const count = Number(process.env.LOAD_FORECAST_SCHEDULES ?? 10_000);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const { callRoute } = await import("../test/call-route");
  const { createTestToken } = await import("../test/auth");
  const route = await import("../app/api/load-forecast/route");
  const { forgetRunDurations } = await import("../core/load/median-run-durations");
  const { closePool } = await import("../core/db/pool");
  try {
    const t0 = performance.now();
    const rows = fleet(count);
    await client.query(
      `INSERT INTO concurrency_groups (name, max_running) SELECT 'group-' || g, 2 + g FROM generate_series(0, 19) g ON CONFLICT DO NOTHING`,
    );
    await client.query(
      `INSERT INTO schedules (name, handler, trigger, timezone, created_at, updated_at, concurrency_group, tags, enabled)
       SELECT n, 'demo.noop', t, z, now() - a * interval '1 second', now() - a * interval '1 second', g, string_to_array(tg, ','), true
         FROM unnest($1::text[], $2::jsonb[], $3::text[], $4::int[], $5::text[], $6::text[]) AS x(n, t, z, a, g, tg)`,
      [
        rows.map((r) => r.name),
        rows.map((r) => JSON.stringify(r.trigger)),
        rows.map((r) => r.zone),
        rows.map((r) => r.createdAgoS),
        rows.map((r) => r.group),
        rows.map((r) => r.tags),
      ],
    );
    await client.query(
      `INSERT INTO runs (schedule_id, kind, planned_at, due_at, idempotency_key, state, handler, timeout_seconds, grace_seconds,
                         attempt, started_at, finished_at, duration_ms)
       SELECT s.id, 'manual', now() - k * interval '1 hour', now() - k * interval '1 hour', 'seed:' || s.id || ':' || k, 'succeeded',
              'demo.noop', 300, 5, 1, now() - k * interval '1 hour', now() - k * interval '1 hour' + d * interval '1 millisecond', d
         FROM schedules s CROSS JOIN generate_series(1, 3) k CROSS JOIN LATERAL (SELECT (1000 + random() * 120000)::int AS d) dd
        WHERE s.concurrency_group IS NOT NULL`,
    );
    await client.query("VACUUM ANALYZE");
    const grouped = rows.filter((r) => r.group).length;
    say(`${count} schedules (${grouped} in 20 groups, 3 finished runs each) seeded in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    const token = await createTestToken(url, "viewer");
    const api = async (qs: string) => {
      const r = await callRoute(route.GET, { token, path: `/api/load-forecast?${qs}` });
      if (r.status !== 200) throw new Error(`GET /api/load-forecast?${qs}: ${r.status} ${JSON.stringify(r.body)}`);
      return r;
    };
    const cases: [string, string, number][] = [
      ["fleet, next 24 h", "window=24h", SAMPLES],
      ["group group-3, next 24 h", "window=24h&by=group&key=group-3", SAMPLES],
      ["tag team-4, next 24 h", "window=24h&by=tag&key=team-4", SAMPLES],
      ["fleet, next 7 days", "window=7d", Math.max(5, Math.floor(SAMPLES / 2))],
    ];
    const load = () => fs.readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
    for (const [label, qs, n] of cases) {
      const first = await api(qs);
      const b = first.body as { plans: number; curve: { total: number; peak: { due: number } }; bursts: unknown[] };
      say(
        `${label}: ${b.curve.total.toLocaleString("en")} runs due, peak ${b.curve.peak.due}/min, ${b.bursts.length} bursts listed, ` +
          `${b.plans} distinct plans for ${count} schedules, answer ${JSON.stringify(first.body).length.toLocaleString("en")} bytes`,
      );
      for (const mode of ["warm", "edited", "cold"] as const) {
        const xs: number[] = [];
        for (let i = 0; i < n; i++) {
          if (mode === "cold") forgetRunDurations();
          // One schedule edited since the last answer: the plan inputs are read and planned again (a busy fleet).
          if (mode === "edited") await client.query(`UPDATE schedules SET updated_at = clock_timestamp() WHERE name = 'load-00001'`);
          const t = performance.now();
          await api(qs);
          xs.push(performance.now() - t);
        }
        say(
          `API ${label} (${mode}): p50 ${percentile(xs, 50).toFixed(0)} ms, p95 ${percentile(xs, 95).toFixed(0)} ms (n=${n}; goal p95 < 1000 ms); load ${load()}`,
        );
      }
    }
    // Where the time goes, in process (what the route's Server-Timing header says): the hashes' check, the read of
    // the rows that changed, the run durations, planning, and the answer's computation; with nothing changed, one
    // schedule edited before each call, and everything read again (a new process, or a calendar or group changed).
    const { getLoadForecast, forgetLoadInputs } = await import("../core/load/load-forecast");
    const { getPool } = await import("../core/db/pool");
    for (const window of ["24h", "7d"] as const) {
      for (const mode of ["unchanged", "one edited", "all read"] as const) {
        const parts: Record<string, number[]> = { checkMs: [], readMs: [], durationsMs: [], planMs: [], computeMs: [] };
        for (let i = 0; i < 5; i++) {
          if (mode === "all read") forgetLoadInputs();
          if (mode === "one edited") await client.query(`UPDATE schedules SET updated_at = clock_timestamp() WHERE name = 'load-00002'`);
          const t = {} as Record<string, number>;
          await getLoadForecast(getPool(), { window, by: "fleet" }, t as never);
          for (const k in parts) parts[k]!.push(t[k]!);
        }
        say(
          `fleet ${window} in process, ${mode}: ` +
            Object.entries(parts)
              .map(([k, xs]) => `${k.replace("Ms", "")} p50 ${percentile(xs, 50).toFixed(0)} ms`)
              .join(", ") +
            `; load ${load()}`,
        );
      }
    }
    // The full read (a new process, or a calendar, link or group changed): the SQL and the records built from it.
    {
      const { SCHEDULE_COLUMNS, toSchedule } = await import("../core/schedules/schedule-record");
      const { ROW_HASH_SQL } = await import("../core/load/load-forecast");
      const sql = `SELECT ${SCHEDULE_COLUMNS} FROM schedules s WHERE s.deleted_at IS NULL ORDER BY s.id`;
      for (const [label, q] of [
        ["schedules read", sql],
        ["row hashes", ROW_HASH_SQL],
      ] as const) {
        const plan = (await client.query(`EXPLAIN (ANALYZE, BUFFERS) ${q}`)).rows.map((r) => r["QUERY PLAN"] as string);
        say(
          `EXPLAIN ANALYZE ${label}: ${plan.filter((l) => /Execution Time|^\S|SubPlan/.test(l.trim()) || !l.startsWith(" ")).join(" | ")}`,
        );
      }
      const t = performance.now();
      const { rows } = await client.query(sql);
      const fetched = performance.now();
      rows.map(toSchedule);
      say(
        `schedules read from the client: query + transfer ${(fetched - t).toFixed(0)} ms, ${JSON.stringify(rows).length.toLocaleString("en")} bytes as JSON; ` +
          `toSchedule ×${rows.length} ${(performance.now() - fetched).toFixed(0)} ms; load ${load()}`,
      );
    }
    say(`machine: ${fs.readFileSync("/proc/cpuinfo", "utf8").match(/processor/g)?.length ?? "?"} CPUs, load average ${load()}`);
  } finally {
    await closePool();
    await client.end();
  }
}

runBenchWhenMain(import.meta.url, "forecast-load.bench", () => forecastLoadBench());
