// Forecast = reality: the real planner (planning step and auto-resume, core/runs/plan/) runs against a simulated
// database clock over a simulated day and more (Europe/Berlin's spring DST jump inside it), with a pause with
// `until`, start and end dates, start jitter, a trigger edit half-way and calendars that exclude and shift fires.
// Before the run, and again after each operator action, the forecast of the rest of the period is taken from
// planFires (fire-plan.ts). Afterwards every run row the planner wrote must be a forecast fire (same nominal
// instant, same planned instant, same fate) and every forecast fire must be a row or, for the fates that write none
// (not started, ended, DST-skipped), have none.
//
// The clock: scheduling SQL reads now(), clock_timestamp() and statement_timestamp(). The test database's
// search_path puts a schema `sim` first, whose functions of those names read a one-row table the test advances.
// The calendars are real: stored with createCalendar (a blocked window with skip, a blocked window with shift_next,
// a blocked day with shift_next) and linked through the schedules' input, so the planner, the edit's replan and the
// resume read them through loadScheduleCalendars and decide with applyCalendars (calendar-rules.ts), as the
// forecast does.
import pg from "pg";
import { beforeAll, describe, expect, it } from "vitest";
import { useTestDatabase } from "../../test/db";
import { loadScheduleCalendars } from "../calendars/calendar-rules";
import { createCalendar } from "../calendars/save-calendar";
import { getPool } from "../db/pool";
import { pausedSql } from "../runs/paused";
import { autoResumeDueSchedules } from "./resume-schedule";
import { planDueSchedules } from "../runs/plan/plan-due-schedules";
import { createSchedule } from "./create-schedule";
import { firePlanOf, planFires, type PlannedFire } from "./fire-plan";
import { pauseSchedule } from "./pause-schedule";
import { scheduleUpdateSchema, type ScheduleInputRaw } from "./schedule-input";
import { getScheduleOrThrow } from "./schedule-record";
import { updateSchedule } from "./update-schedule";

const db = useTestDatabase("forecast_reality");
const alice = { type: "user" as const, id: null, label: "alice@example.com", role: "admin" as const };
const q = async (sql: string, params: unknown[] = []) => (await getPool().query(sql, params)).rows;

const HOUR = 3_600_000;
const T0 = Date.parse("2027-03-27T12:00:00Z"); // Europe/Berlin jumps 02:00 → 03:00 on 2027-03-28 (01:00 UTC)
const END = T0 + 26 * HOUR;
const STEP = 15 * 60_000;
const HORIZON_SECONDS = 3600;

beforeAll(async () => {
  // Before anything opens the product's pool: every connection it opens then has the simulated clock.
  const c = new pg.Client({ connectionString: db.url });
  await c.connect();
  const name = new URL(db.url).pathname.slice(1);
  await c.query(`CREATE SCHEMA sim;
    CREATE TABLE sim.clock (at timestamptz NOT NULL);
    INSERT INTO sim.clock VALUES (to_timestamp(${T0 / 1000}));
    CREATE FUNCTION sim.now() RETURNS timestamptz LANGUAGE sql STABLE AS 'SELECT at FROM sim.clock';
    CREATE FUNCTION sim.clock_timestamp() RETURNS timestamptz LANGUAGE sql STABLE AS 'SELECT at FROM sim.clock';
    CREATE FUNCTION sim.statement_timestamp() RETURNS timestamptz LANGUAGE sql STABLE AS 'SELECT at FROM sim.clock';
    ALTER DATABASE "${name}" SET search_path = sim, pg_catalog, public;`);
  await c.end();
});

const setClock = (ms: number) => q(`UPDATE sim.clock SET at = to_timestamp($1::float8 / 1000)`, [ms]);

/**
 * The planner's share of a tick that this test runs: planning ahead and resuming pauses whose time came; then a
 * stand-in worker ends every run due by now whose schedule is not paused (the claim's rule), so a run's fate is
 * not left to the misfire handling of a fleet without workers.
 */
async function tick(): Promise<void> {
  await planDueSchedules(getPool(), { horizonSeconds: HORIZON_SECONDS });
  await autoResumeDueSchedules(getPool());
  await q(
    `UPDATE runs r SET state = 'succeeded', attempt = 1, started_at = r.due_at, finished_at = r.due_at, updated_at = now()
       FROM schedules s
      WHERE s.id = r.schedule_id AND r.state = 'planned' AND r.due_at <= now() AND NOT ${pausedSql("s", "now()")}`,
  );
}

/** A schedule's forecast from `from` on, as planFires gives it now: the phases a test run went through. */
interface Phase {
  from: number;
  fires: PlannedFire[];
}
const phases = new Map<string, Phase[]>();

async function forecast(id: string, from: number): Promise<void> {
  const s = await getScheduleOrThrow(getPool(), id);
  const links = await loadScheduleCalendars(getPool(), [id]);
  const { fires, cut } = planFires(firePlanOf(s, links.get(id) ?? []), { from: new Date(from), until: new Date(END) });
  expect(cut).toBe(false);
  phases.set(id, [...(phases.get(id) ?? []), { from, fires }]);
}

async function create(name: string, input: Omit<ScheduleInputRaw, "name" | "handler">): Promise<string> {
  return (await createSchedule({ name, handler: "demo.noop", ...input }, alice)).id;
}

describe("forecast = reality", () => {
  it("the planner writes exactly the fires planFires forecast, over a simulated day with DST, a pause, dates, jitter, an edit and calendars", async () => {
    const berlin = (cron: string, gap: "shift" | "skip" = "shift") =>
      ({ kind: "cron", cron, timezone: "Europe/Berlin", dst: { gap, repeat: "once" } }) as const;
    // 2027-03-27 is a Saturday (weekday 6).
    await createCalendar({ name: "Evening freeze", timezone: "UTC", windows: [{ weekdays: [6], start: "18:00", end: "20:00" }] }, alice);
    await createCalendar({ name: "Backup window", timezone: "UTC", windows: [{ weekdays: [6], start: "20:00", end: "21:00" }] }, alice);
    await createCalendar({ name: "Sunday off", timezone: "Europe/Berlin", dates: ["2027-03-28"] }, alice);
    const ids = {
      dstSkip: await create("dst-skip", { trigger: berlin("30 1-3 * * *", "skip") }),
      jittered: await create("jittered", { trigger: berlin("0,30 * * * *"), startJitterMs: 20_000 }),
      paused: await create("paused", { trigger: { kind: "interval", everySeconds: 1200 }, misfirePolicy: "run_once" }),
      dated: await create("dated", {
        trigger: { kind: "cron", cron: "*/15 * * * *", timezone: "UTC" },
        startsAt: new Date(T0 + 2 * HOUR).toISOString(),
        endsAt: new Date(T0 + 10 * HOUR).toISOString(),
      }),
      skipCal: await create("skip-calendar", {
        trigger: { kind: "cron", cron: "0 * * * *", timezone: "UTC" },
        calendars: [{ calendar: "Evening freeze", policy: "skip" }],
      }),
      shiftCal: await create("shift-calendar", {
        trigger: { kind: "cron", cron: "0,30 * * * *", timezone: "UTC" },
        calendars: [{ calendar: "Backup window", policy: "shift_next" }],
      }),
      // 09:00 Berlin on the blocked Sunday moves to Monday 09:00, after the period: a planned row far ahead.
      shiftDay: await create("shift-day", {
        trigger: berlin("0 9 * * *"),
        calendars: [{ calendar: "Sunday off", policy: "shift_next" }],
      }),
      edited: await create("edited", { trigger: { kind: "cron", cron: "*/5 * * * *", timezone: "UTC" } }),
    };
    for (const id of Object.values(ids)) await forecast(id, T0);

    const T1 = T0 + 4 * HOUR; // pause until T1 + 3 h
    const T2 = T0 + 8 * HOUR + 2 * 60_000; // trigger edit */5 → */10
    for (let now = T0 + STEP; now <= END; now += STEP) {
      await setClock(now);
      await tick();
      if (now === T1) {
        await pauseSchedule(ids.paused, { reason: "change window", until: new Date(T1 + 3 * HOUR).toISOString() }, alice);
        await forecast(ids.paused, T1);
      }
      if (now === T2 - 2 * 60_000) {
        await setClock(T2);
        const s = await getScheduleOrThrow(getPool(), ids.edited);
        const edit = scheduleUpdateSchema.parse({ revision: s.revision, trigger: { kind: "cron", cron: "*/10 * * * *", timezone: "UTC" } });
        await updateSchedule(ids.edited, edit, alice);
        await forecast(ids.edited, T2);
        await tick();
      }
    }

    const fates = new Set<string>();
    const byCalendar = new Set<string>();
    let shifted = 0;
    for (const [name, id] of Object.entries(ids)) {
      const rows = await q(
        `SELECT r.planned_at, r.nominal_at, r.due_at, r.state,
                (SELECT e.message FROM run_events e WHERE e.run_id = r.id ORDER BY e.id LIMIT 1) AS first_message
           FROM runs r
          WHERE r.schedule_id = $1 AND r.kind = 'scheduled' AND r.idempotency_key NOT LIKE 'superseded:%'
            AND r.nominal_at > to_timestamp($2::float8 / 1000) AND r.nominal_at <= to_timestamp($3::float8 / 1000)
          ORDER BY r.nominal_at`,
        [id, T0, END],
      );
      const byNominal = new Map(rows.map((r) => [(r.nominal_at as Date).getTime(), r]));
      const expected: PlannedFire[] = [];
      const ps = phases.get(id)!;
      ps.forEach((p, i) => {
        const until = ps[i + 1]?.from ?? END;
        expected.push(...p.fires.filter((f) => f.nominalAt.getTime() <= until));
      });
      let withRow = 0;
      for (const f of expected) {
        fates.add(f.fate);
        if (f.calendar)
          byCalendar.add(
            `${f.calendar.name} ${f.calendar.policy} ${f.fate}${f.plannedAt.getTime() !== f.nominalAt.getTime() ? " moved" : ""}`,
          );
        const at = `${name} ${f.nominalAt.toISOString()} (${f.fate})`;
        const row = byNominal.get(f.nominalAt.getTime());
        if (f.fate === "not_started" || f.fate === "ended" || f.fate === "dst_skipped") {
          expect(row, `${at}: forecast without a row, but the planner wrote one`).toBeUndefined();
          expect(f.reason, at).toBeTruthy();
          continue;
        }
        withRow++;
        expect(row, `${at}: forecast, but no row`).toBeDefined();
        expect((row.planned_at as Date).toISOString(), `${at}: planned instant`).toBe(f.plannedAt.toISOString());
        if (f.plannedAt.getTime() !== f.nominalAt.getTime()) shifted++;
        const states = { run: ["planned", "succeeded"], paused: ["paused"], excluded: ["excluded"] }[
          f.fate as "run" | "paused" | "excluded"
        ];
        expect(states, `${at}: state`).toContain(row.state);
        if (f.fate === "excluded") expect(row.first_message, `${at}: reason`).toBe(f.reason);
        const due = (row.due_at as Date).getTime() - f.plannedAt.getTime();
        expect(due >= 0 && due <= (f.fate === "excluded" ? 0 : f.jitterMs), `${at}: due ${due} ms after its planned instant`).toBe(true);
      }
      // Nothing written that the forecast did not have.
      expect(rows.length, `${name}: rows written vs forecast fires with a row`).toBe(withRow);
    }
    // The period exercised every rule.
    expect([...fates].sort()).toEqual(["dst_skipped", "ended", "excluded", "not_started", "paused", "run"]);
    expect(shifted).toBeGreaterThan(0);
    // Each real calendar did its part: skip excluded, shift_next moved (window and day), and a fire moved onto
    // another's instant was excluded.
    expect([...byCalendar].sort()).toEqual([
      "Backup window shift_next excluded",
      "Backup window shift_next run moved",
      "Evening freeze skip excluded",
      "Sunday off shift_next run moved",
    ]);
    const jitters = await q(`SELECT count(DISTINCT due_at - planned_at)::int AS n FROM runs WHERE schedule_id = $1`, [ids.jittered]);
    expect(jitters[0].n).toBeGreaterThan(1);
  });
});
