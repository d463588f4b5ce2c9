// "Late" has one owner (lateness.ts): its TypeScript and SQL forms agree over a table of cases, and every
// reader — the runs list and its filter, the run page, the schedules list's counts, the header overview, the
// API (app/api/runs/runs-route.db.test.ts) — calls a run 1.5 s late on a schedule with 1 s of start jitter on time, and one 2.5 s late late.
import { beforeAll, describe, expect, it } from "vitest";
import { useTestDatabase } from "@/test/db";
import { getPool } from "@/core/db/pool";
import { listSchedules } from "@/core/schedules/list-schedules";
import { getRunTrace } from "./read/get-run";
import { classifyLateness, isLate, LATE_AFTER_MS, lateSql } from "./lateness";
import { listRuns } from "./read/list-runs";
import { getRunsOverview } from "./read/overview";

useTestDatabase("lateness");

describe("the TypeScript rule and its SQL twin", () => {
  it("agree over a table of lateness × jitter cases, boundaries and not-started runs included", async () => {
    const cases: [number | null, number | null][] = [];
    for (const jitter of [0, 1, 999, 1000, 60_000, null]) {
      const t = (jitter ?? 0) + LATE_AFTER_MS;
      for (const lateness of [null, -500, 0, 1, t - 1, t, t + 1, 1500, 2500, 3_600_000]) cases.push([lateness, jitter]);
    }
    const { rows } = await getPool().query<{ late: boolean | null }>(
      `SELECT ${lateSql("x.lateness", "x.jitter")} AS late
         FROM unnest($1::int[], $2::int[]) WITH ORDINALITY AS x(lateness, jitter, i) ORDER BY x.i`,
      [cases.map((c) => c[0]), cases.map((c) => c[1])],
    );
    const sql = rows.map((r) => (r.late === null ? null : r.late ? "late" : "on_time"));
    expect(sql).toEqual(cases.map(([l, j]) => classifyLateness(l, j)));
    expect(cases.filter(([l, j]) => isLate(l, j))).toEqual(cases.filter((_, i) => sql[i] === "late"));
  });
});

describe("every reader applies the one rule", () => {
  let scheduleId: string;
  const run: Record<"inside" | "beyond" | "waiting", string> = { inside: "", beyond: "", waiting: "" };

  beforeAll(async () => {
    const pool = getPool();
    const { rows } = await pool.query(
      `INSERT INTO schedules (name, handler, trigger, start_jitter_ms) VALUES ('jittered', 'demo.noop', '{"kind":"interval","everySeconds":60}', 1000) RETURNING id`,
    );
    scheduleId = rows[0].id;
    // Planned 3, 2 and 1 minutes ago; started 1.5 s and 2.5 s after planned; the last not started.
    for (const [name, minutesAgo, latenessMs] of [
      ["inside", 3, 1500],
      ["beyond", 2, 2500],
      ["waiting", 1, null],
    ] as const) {
      const { rows: r } = await pool.query(
        `INSERT INTO runs (schedule_id, planned_at, due_at, idempotency_key, state, handler, timeout_seconds, grace_seconds,
                           started_at, lateness_ms, finished_at)
         SELECT $1, p, p, gen_random_uuid()::text, CASE WHEN $3::int IS NULL THEN 'missed' ELSE 'succeeded' END, 'demo.noop', 60, 5,
                p + make_interval(secs => $3::int / 1000.0), $3::int, p + interval '5 seconds'
           FROM (SELECT clock_timestamp() - make_interval(mins => $2) AS p) t
         RETURNING id`,
        [scheduleId, minutesAgo, latenessMs],
      );
      run[name] = r[0].id;
    }
  });

  it("the runs list filters by lateness and carries the jitter the console classifies with", async () => {
    const late = await listRuns(getPool(), { scheduleId, lateness: "late" });
    const onTime = await listRuns(getPool(), { scheduleId, lateness: "on_time" });
    expect(late.runs.map((r) => r.id)).toEqual([run.beyond]);
    expect(onTime.runs.map((r) => r.id)).toEqual([run.inside]);
    const all = await listRuns(getPool(), { scheduleId });
    expect(all.runs.map((r) => classifyLateness(r.latenessMs, r.startJitterMs))).toEqual([null, "late", "on_time"]);
  });

  it("the run page, the schedules list's counts and the overview say the same", async () => {
    expect((await getRunTrace(getPool(), run.inside)).run.timings.lateness).toBe("on_time");
    expect((await getRunTrace(getPool(), run.beyond)).run.timings.lateness).toBe("late");
    const [s] = await listSchedules(getPool(), { id: scheduleId });
    expect(s!.counts24h.late).toBe(1);
    expect((await getRunsOverview(getPool())).lastHour.late).toBe(1);
  });
});
