// Business calendars through the API: create / validate / list, schedules that follow them by name, the edit's dry
// run (which schedules' next fires change, old vs new) and the real edit replanning not-started runs, delete refused
// while in use, the .ics import, and the plan (fire-plan.ts) skipping and shifting fires with the stored calendars.
import { beforeAll, describe, expect, it } from "vitest";
import { useTestDatabase } from "@/test/db";
import { createTestToken } from "@/test/auth";
import { callRoute } from "@/test/call-route";
import { dbNow, getPool, type Queryable } from "@/core/db/pool";
import { loadScheduleCalendars } from "@/core/calendars/calendar-rules";
import { firePlanOf, planFires } from "@/core/schedules/fire-plan";
import { getScheduleOrThrow } from "@/core/schedules/schedule-record";
import { insertOccurrencesOfSchedules, occurrencesBetween } from "@/core/runs/plan/plan-occurrences";
import * as calendars from "./route";
import * as calendar from "./[id]/route";
import * as importRoute from "./import/route";
import * as schedules from "../schedules/route";
import * as schedule from "../schedules/[id]/route";

const db = useTestDatabase("calendars");
let operator: string;
let viewer: string;

beforeAll(async () => {
  operator = await createTestToken(db.url, "operator");
  viewer = await createTestToken(db.url, "viewer");
});

const createCalendar = (body: unknown, token = operator) =>
  callRoute(calendars.POST, { method: "POST", token, path: "/api/calendars", body });
const putCalendar = (id: string, body: unknown) =>
  callRoute(calendar.PUT, { method: "PUT", token: operator, path: `/api/calendars/${id}`, params: { id }, body });
const createSchedule = (body: Record<string, unknown>) =>
  callRoute(schedules.POST, {
    method: "POST",
    token: operator,
    path: "/api/schedules",
    body: { handler: "demo.noop", payload: {}, ...body },
  });
const audit = async (action: string) => (await getPool().query(`SELECT * FROM audit_events WHERE action = $1 ORDER BY id`, [action])).rows;
const calendarCount = async () => Number((await getPool().query(`SELECT count(*) AS n FROM calendars`)).rows[0].n);

const ids: Record<string, string> = {};

describe("calendars", () => {
  it("creates a calendar (dates and weekdays deduplicated and sorted), lists it, and refuses bad input naming each field", async () => {
    const res = await createCalendar({
      name: "Holidays DE",
      timezone: "Europe/Berlin",
      dates: ["2026-12-26", "2026-12-25", "2026-12-25"],
      weekdays: [6, 0],
      windows: [{ weekdays: [0], start: "02:00", end: "04:00" }],
    });
    expect(res.status).toBe(200);
    expect(res.body.calendar).toMatchObject({
      name: "Holidays DE",
      dates: ["2026-12-25", "2026-12-26"],
      weekdays: [0, 6],
      revision: 1,
      schedules: [],
    });
    ids.holidays = res.body.calendar.id;
    expect((await audit("calendar.create")).map((a) => a.after.name)).toEqual(["Holidays DE"]);

    const taken = await createCalendar({ name: "holidays de", timezone: "UTC" });
    expect([taken.status, taken.body.error.code]).toEqual([409, "name_taken"]);
    const bad = await createCalendar({
      name: "Bad",
      timezone: "Mars/Olympus",
      dates: ["2026-02-30"],
      windows: [{ weekdays: [9], start: "25:00", end: "04:00" }],
    });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.error.fields).sort()).toEqual(["dates.0", "timezone", "windows.0.start", "windows.0.weekdays.0"]);
    expect((await createCalendar({ name: "Viewer's", timezone: "UTC" }, viewer)).status).toBe(403);

    const dry = await createCalendar({ name: "Dry", timezone: "UTC", dryRun: true });
    expect([dry.status, dry.body.dryRun]).toEqual([200, true]);
    const list = await callRoute(calendars.GET, { token: viewer, path: "/api/calendars" });
    expect(list.body.calendars.map((c: { name: string }) => c.name)).toEqual(["Holidays DE"]);
  });

  it("lets a schedule follow calendars by name (422 naming an unknown one, nothing stored) and answers them on the schedule", async () => {
    const unknown = await createSchedule({
      name: "orphan",
      trigger: { kind: "interval", everySeconds: 60 },
      calendars: [{ calendar: "No Such Calendar", policy: "skip" }],
    });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error.fields["calendars.0.calendar"]).toBe(
      'No calendar named "No Such Calendar"; create it on the Calendars page first',
    );
    expect((await getPool().query(`SELECT 1 FROM schedules WHERE name = 'orphan'`)).rowCount).toBe(0);

    await createCalendar({ name: "Business days", timezone: "Europe/Berlin", weekdays: [0, 6] });
    const res = await createSchedule({
      name: "month-end",
      trigger: { kind: "cron", cron: "0 18 31 1 *", timezone: "Europe/Berlin" },
      calendars: [
        { calendar: "business DAYS", policy: "shift_previous" },
        { calendar: "Holidays DE", policy: "skip" },
      ],
    });
    expect(res.status).toBe(200);
    ids.monthEnd = res.body.schedule.id;
    expect(res.body.schedule.calendars.map((c: { name: string; policy: string }) => [c.name, c.policy])).toEqual([
      ["Business days", "shift_previous"],
      ["Holidays DE", "skip"],
    ]);
    const read = await callRoute(schedule.GET, { token: viewer, path: `/api/schedules/${ids.monthEnd}`, params: { id: ids.monthEnd! } });
    expect(read.body.schedule.calendars).toEqual(res.body.schedule.calendars);
    const holidays = await callRoute(calendar.GET, { token: viewer, path: "/api/calendars/x", params: { id: ids.holidays! } });
    expect(holidays.body.calendar.schedules).toEqual([{ id: ids.monthEnd, name: "month-end", policy: "skip" }]);
  });

  it("loadScheduleCalendars reads every schedule's links in one query, in order; the plan shifts and skips with them", async () => {
    const other = await createSchedule({
      name: "daily",
      trigger: { kind: "cron", cron: "0 18 * * *", timezone: "Europe/Berlin" },
      calendars: [{ calendar: "Holidays DE", policy: "skip" }],
    });
    ids.daily = other.body.schedule.id;
    let queries = 0;
    const pool = getPool();
    const counting: Queryable = {
      query: ((...args: Parameters<Queryable["query"]>) => (queries++, pool.query(...args))) as Queryable["query"],
    };
    const links = await loadScheduleCalendars(counting, [ids.monthEnd!, ids.daily!, crypto.randomUUID()]);
    expect(queries).toBe(1);
    expect(links.get(ids.monthEnd!)!.map((l) => [l.calendar.name, l.policy])).toEqual([
      ["Business days", "shift_previous"],
      ["Holidays DE", "skip"],
    ]);
    expect(links.get(ids.daily!)!.map((l) => l.calendar.name)).toEqual(["Holidays DE"]);
    expect(links.size).toBe(2);

    // 2027-01-31 is a Sunday: "18:00 on the 31st of January" runs at 18:00 on Friday the 29th.
    const monthEnd = await getScheduleOrThrow(pool, ids.monthEnd!);
    const jan = planFires(firePlanOf(monthEnd, links.get(ids.monthEnd!)), {
      from: new Date("2027-01-01Z"),
      until: new Date("2027-02-01Z"),
    });
    expect(jan.fires.map((f) => [f.nominalAt.toISOString(), f.plannedAt.toISOString(), f.fate])).toEqual([
      ["2027-01-31T17:00:00.000Z", "2027-01-29T17:00:00.000Z", "run"],
    ]);
    expect(jan.fires[0]!.reason).toBe(
      'moved from 2027-01-31 18:00 to 2027-01-29 18:00 Europe/Berlin by calendar "Business days" (shift to the previous allowed time; Sunday is a blocked weekday (2027-01-31))',
    );
    const daily = await getScheduleOrThrow(pool, ids.daily!);
    const xmas = planFires(firePlanOf(daily, links.get(ids.daily!)), {
      from: new Date("2026-12-24T12:00Z"),
      until: new Date("2026-12-27T12:00Z"),
    });
    expect(xmas.fires.map((f) => [f.nominalAt.toISOString().slice(0, 10), f.fate])).toEqual([
      ["2026-12-24", "run"],
      ["2026-12-25", "excluded"],
      ["2026-12-26", "excluded"],
    ]);
    expect(xmas.fires[1]!.reason).toBe('excluded by calendar "Holidays DE" (2026-12-25 is a blocked day)');
  });

  it("an edit's dry run lists the schedules whose next fires change (old vs new) and stores nothing; the save replans them", async () => {
    const maint = await createCalendar({ name: "Maintenance", timezone: "UTC" });
    ids.maint = maint.body.calendar.id;
    const every = await createSchedule({
      name: "every-10s",
      trigger: { kind: "interval", everySeconds: 10 },
      calendars: [{ calendar: "Maintenance", policy: "skip" }],
    });
    ids.every = every.body.schedule.id;
    const pool = getPool();
    const now = await dbNow(pool);
    const s = await getScheduleOrThrow(pool, ids.every!);
    const planned = await insertOccurrencesOfSchedules(
      pool,
      "scheduled",
      occurrencesBetween(firePlanOf(s, (await loadScheduleCalendars(pool, [s.id])).get(s.id) ?? []), {
        from: new Date(now.getTime() + 10_000),
        until: new Date(now.getTime() + 70_000),
      }).items,
    );
    expect(planned.length).toBeGreaterThanOrEqual(5);
    const window = {
      start: new Date(now.getTime() - 60_000).toISOString(),
      end: new Date(now.getTime() + 3_600_000).toISOString(),
      summary: "DB upgrade",
    };

    const dry = await putCalendar(ids.maint!, { revision: 1, ranges: [window], dryRun: true });
    expect(dry.status).toBe(200);
    expect(dry.body.dryRun).toBe(true);
    expect(dry.body.effects.changed.map((c: { schedule: { name: string } }) => c.schedule.name)).toEqual(["every-10s"]);
    const change = dry.body.effects.changed[0];
    expect(change.before).toHaveLength(10);
    expect(change.before.every((f: { fate: string }) => f.fate === "run")).toBe(true);
    expect(change.after.every((f: { fate: string }) => f.fate === "excluded")).toBe(true);
    expect(change.after[0].reason).toMatch(/^excluded by calendar "Maintenance" \(inside the blocked range "DB upgrade" /);
    expect((await pool.query(`SELECT revision FROM calendars WHERE id = $1`, [ids.maint])).rows[0].revision).toBe(1);
    expect(await audit("calendar.edit")).toHaveLength(0);
    const stillPlanned = await pool.query(`SELECT count(*)::int AS n FROM runs WHERE schedule_id = $1 AND state = 'planned'`, [ids.every]);
    expect(stillPlanned.rows[0].n).toBe(planned.length);

    const saved = await putCalendar(ids.maint!, { revision: 1, ranges: [window] });
    expect(saved.status).toBe(200);
    expect(saved.body.calendar.revision).toBe(2);
    expect(saved.body.cancelledRuns).toBe(planned.length);
    const runs = await pool.query(
      `SELECT r.state, e.message FROM runs r JOIN run_events e ON e.run_id = r.id AND e.type = 'replanned' WHERE r.schedule_id = $1`,
      [ids.every],
    );
    expect(runs.rows).toHaveLength(planned.length);
    expect(new Set(runs.rows.map((r) => r.state))).toEqual(new Set(["cancelled"]));
    expect(runs.rows[0].message).toBe(
      'cancelled: calendar "Maintenance" was changed (revision 2), and the schedule no longer runs this fire at this time',
    );
    const [edit] = await audit("calendar.edit");
    expect(edit.after).toMatchObject({
      revision: 2,
      replanned: ["every-10s"],
      nextFiresChanged: ["every-10s"],
      cancelledRuns: planned.length,
    });
    expect(edit.before).toMatchObject({ ranges: [], revision: 1 });

    const stale = await putCalendar(ids.maint!, { revision: 1, description: "x" });
    expect([stale.status, stale.body.error.code]).toEqual([409, "stale_revision"]);
  });

  it("a schedule that starts following a calendar is replanned: its planned runs the calendar blocks end cancelled", async () => {
    const pool = getPool();
    const now = await dbNow(pool);
    const freeze = {
      start: new Date(now.getTime() - 60_000).toISOString(),
      end: new Date(now.getTime() + 3_600_000).toISOString(),
    };
    expect((await createCalendar({ name: "Freeze", timezone: "UTC", ranges: [freeze] })).status).toBe(200);
    const created = await createSchedule({ name: "every-5s", trigger: { kind: "interval", everySeconds: 5 } });
    const s = await getScheduleOrThrow(pool, created.body.schedule.id);
    const planned = await insertOccurrencesOfSchedules(
      pool,
      "scheduled",
      // From 10 s on: a run already due when the edit lands is the enqueuer's, not the replan's.
      occurrencesBetween(firePlanOf(s, (await loadScheduleCalendars(pool, [s.id])).get(s.id) ?? []), {
        from: new Date(now.getTime() + 10_000),
        until: new Date(now.getTime() + 40_000),
      }).items,
    );
    const patched = await callRoute(schedule.PATCH, {
      method: "PATCH",
      token: operator,
      path: `/api/schedules/${s.id}`,
      params: { id: s.id },
      body: { revision: s.revision, calendars: [{ calendar: "freeze", policy: "skip" }] },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.schedule.calendars).toMatchObject([{ name: "Freeze", policy: "skip" }]);
    const runs = await pool.query(
      `SELECT r.state, e.message FROM runs r JOIN run_events e ON e.run_id = r.id AND e.type = 'replanned' WHERE r.schedule_id = $1`,
      [s.id],
    );
    expect(runs.rows).toHaveLength(planned.length);
    expect(runs.rows.every((r) => r.state === "cancelled")).toBe(true);
    expect(runs.rows[0].message).toBe(
      `cancelled: revision ${s.revision + 1} changed the schedule's plan (calendars), which does not run this fire at this time`,
    );
  });

  it("refuses to delete a calendar a schedule follows (409 naming it); deletes it once none does; audited", async () => {
    const del = () =>
      callRoute(calendar.DELETE, { method: "DELETE", token: operator, path: `/api/calendars/${ids.maint}`, params: { id: ids.maint! } });
    const refused = await del();
    expect([refused.status, refused.body.error.code]).toEqual([409, "calendar_in_use"]);
    expect(refused.body.error.message).toBe('Calendar "Maintenance" is used by schedule every-10s; remove it from them first.');

    const current = await getScheduleOrThrow(getPool(), ids.every!);
    const patched = await callRoute(schedule.PATCH, {
      method: "PATCH",
      token: operator,
      path: `/api/schedules/${ids.every}`,
      params: { id: ids.every! },
      body: { revision: current.revision, calendars: [] },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.schedule.calendars).toEqual([]);
    expect(patched.body.schedule.revision).toBe(current.revision + 1);
    const edits = await audit("schedule.edit");
    expect(edits.at(-1).before.calendars).toEqual([{ name: "Maintenance", policy: "skip" }]);
    expect(edits.at(-1).after.calendars).toEqual([]);

    const deleted = await del();
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ id: ids.maint, name: "Maintenance" });
    expect((await audit("calendar.delete")).map((a) => a.before.name)).toEqual(["Maintenance"]);
    const gone = await callRoute(calendar.GET, { token: viewer, path: "/api/calendars/x", params: { id: ids.maint! } });
    expect(gone.status).toBe(404);
  });

  it("imports an .ics file (events become blocked dates and ranges); a bad file is a 422 and stores nothing", async () => {
    const ics = [
      "BEGIN:VCALENDAR",
      "VERSION:2.0",
      "PRODID:-//Vigil tests//EN",
      "BEGIN:VEVENT",
      "UID:xmas",
      "DTSTART;VALUE=DATE:20261224",
      "DTEND;VALUE=DATE:20261227",
      "SUMMARY:Christmas",
      "END:VEVENT",
      "BEGIN:VEVENT",
      "UID:freeze",
      "DTSTART;TZID=Europe/Berlin:20261228T090000",
      "DTEND;TZID=Europe/Berlin:20261228T170000",
      "SUMMARY:Change freeze",
      "END:VEVENT",
      "END:VCALENDAR",
    ].join("\r\n");
    const post = (body: unknown) => callRoute(importRoute.POST, { method: "POST", token: operator, path: "/api/calendars/import", body });
    const before = await calendarCount();
    const dry = await post({ name: "Team holidays", timezone: "Europe/Berlin", ics, dryRun: true });
    expect([dry.status, dry.body.dryRun, await calendarCount()]).toEqual([200, true, before]);

    const res = await post({ name: "Team holidays", timezone: "Europe/Berlin", ics });
    expect(res.status).toBe(200);
    expect(res.body.imported).toEqual({ events: 2, skipped: 0, dates: 3, ranges: 1 });
    expect(res.body.calendar.dates).toEqual(["2026-12-24", "2026-12-25", "2026-12-26"]);
    expect(res.body.calendar.ranges).toEqual([
      { start: "2026-12-28T08:00:00.000Z", end: "2026-12-28T16:00:00.000Z", summary: "Change freeze" },
    ]);
    expect((await audit("calendar.create")).at(-1).after).toMatchObject({ name: "Team holidays", importedFrom: "ics", events: 2 });

    const bad = await post({ name: "Broken", timezone: "Europe/Berlin", ics: "BEGIN:VCALENDAR\r\nthis is not ics\r\nEND:VCALENDAR" });
    expect([bad.status, bad.body.error.code]).toEqual([422, "invalid_ics"]);
    expect(bad.body.error.message).toMatch(/^The file is not a valid iCalendar \(\.ics\) file: /);
    expect(bad.body.error.fields).toHaveProperty(["ics"]);
    expect(await calendarCount()).toBe(before + 1);
  });
});
