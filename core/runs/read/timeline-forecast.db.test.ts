// The timeline's future part: every fire the plan computes for the lanes in view is drawn from now to the window's
// end, a fire that already has a row is drawn by the row instead (never twice), a paused schedule's fires carry the
// pause as their fate and reason, work stops at the cap and the answer says where, and a dense forecast is
// summarised without losing a fire.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { useTestDatabase, testPool } from "../../../test/db";
import { insertSchedule } from "../../../test/run-fixtures";
import { planFires } from "../../schedules/fire-plan";
import { getTimeline } from "./timeline";
import { getTimelineForecast } from "./timeline-forecast";

const db = useTestDatabase("timeline-forecast");
let pool: pg.Pool;
let minutely: string;
let hourly: string;
let now: Date;
const MIN = 60_000;
const H = 3_600_000;

async function dbNow(): Promise<Date> {
  const { rows } = await pool.query<{ now: Date }>(`SELECT clock_timestamp() AS now`);
  return rows[0]!.now;
}

async function named(id: string, name: string, trigger: object): Promise<void> {
  await pool.query(`UPDATE schedules SET name = $2, trigger = $3, created_at = clock_timestamp() - interval '1 day' WHERE id = $1`, [
    id,
    name,
    JSON.stringify(trigger),
  ]);
}

/** The instants of one lane's forecast marks, with their fate names. */
function laneMarks(tl: Awaited<ReturnType<typeof getTimeline>>, lane: number): { at: number; fate: string; reason: string | null }[] {
  const f = tl.forecast!;
  return f.marks
    .filter((m) => m[0] === lane)
    .map(([, planned, fate, reason]) => ({ at: tl.t0 + planned, fate: f.fates[fate]!, reason: reason < 0 ? null : f.reasons[reason]! }));
}

beforeAll(async () => {
  pool = testPool(db.url, 2);
  minutely = await insertSchedule(pool, { handler: "demo.sleep" });
  hourly = await insertSchedule(pool, { handler: "demo.sleep" });
  await named(minutely, "a-every-minute", { kind: "cron", cron: "* * * * *", timezone: "UTC", dst: { gap: "shift", repeat: "once" } });
  await named(hourly, "b-hourly", { kind: "cron", cron: "0 * * * *", timezone: "UTC", dst: { gap: "shift", repeat: "once" } });
  now = await dbNow();
});

afterAll(async () => {
  await pool.end();
});

describe("timeline forecast", () => {
  it("draws every future fire of an every-minute and an hourly schedule in a next-6-h window", async () => {
    const from = new Date(now.getTime());
    const to = new Date(now.getTime() + 6 * H);
    const tl = await getTimeline(pool, { from, to, width: 1600 });
    expect(tl.schedules.map((s) => s.name)).toEqual(["a-every-minute", "b-hourly"]);
    const f = tl.forecast!;
    expect(f.mode).toBe("marks");
    expect(f.cut).toEqual([]);
    const forecastFrom = Date.parse(f.from);
    const everyMinute: number[] = [];
    for (let t = Math.floor(forecastFrom / MIN) * MIN + MIN; t <= to.getTime(); t += MIN) everyMinute.push(t);
    const everyHour = everyMinute.filter((t) => t % H === 0);
    expect(laneMarks(tl, 0).map((m) => m.at)).toEqual(everyMinute);
    expect(laneMarks(tl, 1).map((m) => m.at)).toEqual(everyHour);
    expect(everyMinute.length).toBeGreaterThanOrEqual(359);
    expect(new Set(laneMarks(tl, 0).map((m) => m.fate))).toEqual(new Set(["run"]));
    // No worker is registered in this database: both handlers are unserved, and the answer says so per lane.
    expect(f.noWorker).toEqual([
      [0, "demo.sleep"],
      [1, "demo.sleep"],
    ]);
  });

  it("leaves a fire that already has a row to the row (drawn once, as a run)", async () => {
    const from = new Date(now.getTime());
    const to = new Date(now.getTime() + H);
    const before = await getTimeline(pool, { from, to, width: 1600 });
    const third = laneMarks(before, 0)[2]!.at;
    await pool.query(
      `INSERT INTO runs (schedule_id, kind, planned_at, due_at, idempotency_key, state, handler, timeout_seconds, grace_seconds)
       VALUES ($1, 'scheduled', $2, $2, $3, 'planned', 'demo.sleep', 30, 1)`,
      [minutely, new Date(third), `${minutely}:${new Date(third).toISOString()}`],
    );
    const after = await getTimeline(pool, { from, to, width: 1600 });
    expect(laneMarks(after, 0).map((m) => m.at)).not.toContain(third);
    expect(laneMarks(after, 0)).toHaveLength(laneMarks(before, 0).length - 1);
    expect(after.forecast!.materialised).toBe(before.forecast!.materialised + 1);
    expect(after.runs.filter((r) => r[0] === 0).map((r) => after.t0 + r[1])).toContain(third);
  });

  it("stops at the per-lane cap and says up to where the lane's forecast is complete", async () => {
    const from = new Date(now.getTime());
    const to = new Date(now.getTime() + 6 * H);
    const f = await getTimelineForecast(pool, {
      scheduleIds: [minutely, hourly],
      from,
      to,
      now,
      t0: from.getTime(),
      width: 1600,
      summaryPxPerRun: 2,
      bucketMs: 60_000,
      maxMarks: 60_000,
      laneCap: 100,
    });
    const lane0 = f.marks.filter((m) => m[0] === 0);
    // 100 computed, one of them materialised by the test above.
    expect(lane0.length + f.materialised).toBe(100);
    expect(f.cut).toHaveLength(1);
    expect(f.cut[0]![0]).toBe(0);
    expect(f.cut[0]![1]).toBe(Math.max(...lane0.map((m) => m[1])));
    expect(f.marks.filter((m) => m[0] === 1).length).toBe(6);
  });

  it("summarises a dense forecast per lane and bucket without losing a fire", async () => {
    const from = new Date(now.getTime());
    const to = new Date(now.getTime() + 24 * H);
    const tl = await getTimeline(pool, { from, to, width: 200 });
    const f = tl.forecast!;
    expect(f.mode).toBe("summary");
    expect(f.marks).toEqual([]);
    const total = f.buckets.reduce((n, b) => n + b.slice(2).reduce((m, v, i) => (i % 2 === 1 ? m + v : m), 0), 0);
    const minutes = Math.floor(to.getTime() / MIN) - Math.floor(Date.parse(f.from) / MIN);
    // Every minute's fire of the every-minute lane (less the materialised one) plus the hourly lane's.
    const hours = Math.floor(to.getTime() / H) - Math.floor(Date.parse(f.from) / H);
    expect(total).toBe(minutes - f.materialised + hours);
  });

  it("leaves the forecast out of a window that ended before now", async () => {
    const tl = await getTimeline(pool, { from: new Date(now.getTime() - 2 * H), to: new Date(now.getTime() - H) });
    expect(tl.forecast).toBeUndefined();
  });

  // The pause's fate is the plan's (fire-plan.ts): this runs once planFires decides it.
  const planKnowsPauses =
    planFires(
      {
        id: "x",
        trigger: { kind: "interval", everySeconds: 60 },
        createdAt: new Date(0),
        startJitterMs: 0,
        timezone: "UTC",
        paused: { at: new Date(0), by: null, reason: "probe", until: new Date(Date.UTC(2100, 0, 1)) },
        calendars: [],
      },
      { from: new Date(Date.UTC(2099, 0, 1)), until: new Date(Date.UTC(2099, 0, 1, 0, 2)) },
    ).fires[0]?.fate === "paused";
  it.runIf(planKnowsPauses)("marks a paused-until schedule's fires paused with the reason, and those after the until as runs", async () => {
    const paused = await insertSchedule(pool, { handler: "demo.sleep" });
    await named(paused, "c-paused", { kind: "cron", cron: "*/10 * * * *", timezone: "UTC", dst: { gap: "shift", repeat: "once" } });
    await pool.query(
      `UPDATE schedules SET paused_at = clock_timestamp(), paused_by = 'test', pause_reason = 'db upgrade',
              paused_until = date_trunc('hour', clock_timestamp()) + interval '2 hours' WHERE id = $1`,
      [paused],
    );
    const t = await dbNow();
    const until = Math.floor(t.getTime() / H) * H + 2 * H;
    const tl = await getTimeline(pool, { from: t, to: new Date(t.getTime() + 4 * H), width: 1600, scheduleId: paused });
    const marks = laneMarks(tl, 0);
    const held = marks.filter((m) => m.at < until);
    const after = marks.filter((m) => m.at > until);
    expect(held.length).toBeGreaterThan(1);
    // Misfire policy run_once (the default): the resume at `until` runs the newest held fire, the others stay held.
    expect(held.slice(0, -1).map((m) => m.fate)).toEqual(held.slice(0, -1).map(() => "paused"));
    expect(held.at(-1)!.fate).toBe("run");
    expect(held.at(-1)!.reason).toMatch(/then run at the resume \(misfire policy run_once\)/);
    for (const m of held) expect(m.reason).toMatch(/paus/i);
    expect(new Set(after.map((m) => m.fate))).toEqual(new Set(["run"]));
  });
});
