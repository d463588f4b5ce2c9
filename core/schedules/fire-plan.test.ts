import { describe, expect, it, vi } from "vitest";
import type { CalendarLink, CalendarOutcome, CalendarRules } from "../calendars/calendar-rules";
import { planFires, type FirePlanSchedule } from "./fire-plan";
import { triggerSchema } from "./trigger";

// A stand-in for the calendars' rules (owned elsewhere): a calendar blocks its `dates` (UTC days); a blocked fire is
// excluded (skip) or moved a day back / forward at the same time of day. Enough to test what fire-plan.ts decides
// around the calendar step: the order of the rules, and collisions.
vi.mock("../calendars/calendar-rules", () => ({
  applyCalendars: (links: readonly CalendarLink[], fireMs: number): CalendarOutcome => {
    for (const l of links) {
      if (!l.calendar.dates.includes(new Date(fireMs).toISOString().slice(0, 10))) continue;
      if (l.policy === "skip")
        return { kind: "excluded", calendar: l.calendar, policy: l.policy, reason: `excluded by calendar "${l.calendar.name}"` };
      let to = fireMs;
      do to += l.policy === "shift_next" ? 86_400_000 : -86_400_000;
      while (l.calendar.dates.includes(new Date(to).toISOString().slice(0, 10)));
      return { kind: "shifted", toMs: to, calendar: l.calendar, policy: l.policy, reason: `moved by calendar "${l.calendar.name}"` };
    }
    return { kind: "keep" };
  },
}));

const calendar = (dates: string[]): CalendarRules => ({
  id: "c1",
  name: "Holidays",
  timezone: "UTC",
  dates,
  weekdays: [],
  windows: [],
  ranges: [],
});

function schedule(over: Partial<FirePlanSchedule> & { cron?: string; zone?: string; gap?: "shift" | "skip" } = {}): FirePlanSchedule {
  const { cron = "0 18 * * *", zone = "UTC", gap = "shift", ...rest } = over;
  return {
    id: "s1",
    trigger: triggerSchema.parse({ kind: "cron", cron, timezone: zone, dst: { gap, repeat: "once" } }),
    createdAt: new Date("2026-01-01T00:00:00Z"),
    startJitterMs: 0,
    paused: null,
    timezone: zone,
    startsAt: null,
    endsAt: null,
    calendars: [],
    ...rest,
  };
}

const range = (from: string, until: string) => ({ from: new Date(from), until: new Date(until) });
const brief = (fires: ReturnType<typeof planFires>["fires"]) =>
  fires.map((f) => `${f.nominalAt.toISOString().slice(5, 16)}→${f.plannedAt.toISOString().slice(5, 16)} ${f.fate}`);

describe("planFires: what becomes of each fire", () => {
  it("runs every fire of a plain schedule, with its jitter range", () => {
    const { fires, cut } = planFires(schedule({ startJitterMs: 30_000 }), range("2026-12-20T00:00:00Z", "2026-12-23T00:00:00Z"));
    expect(cut).toBe(false);
    expect(brief(fires)).toEqual(["12-20T18:00→12-20T18:00 run", "12-21T18:00→12-21T18:00 run", "12-22T18:00→12-22T18:00 run"]);
    expect(fires.every((f) => f.jitterMs === 30_000 && f.reason === null)).toBe(true);
  });

  it("lists the wall times a DST gap drops under gap policy skip, with the sentence saying so", () => {
    const s = schedule({ cron: "30 2 * * *", zone: "Europe/Berlin", gap: "skip" });
    const { fires } = planFires(s, range("2026-03-28T00:00:00Z", "2026-03-31T00:00:00Z"));
    expect(fires.map((f) => f.fate)).toEqual(["run", "dst_skipped", "run"]);
    expect(fires[1]!.reason).toMatch(/skip/);
  });

  it("holds fires before the start date and after the end date, whatever the calendar says", () => {
    const s = schedule({
      startsAt: new Date("2026-12-21T00:00:00Z"),
      endsAt: new Date("2026-12-23T18:00:00Z"),
      calendars: [{ calendar: calendar(["2026-12-20", "2026-12-24"]), policy: "skip" }],
    });
    const { fires } = planFires(s, range("2026-12-19T00:00:00Z", "2026-12-25T00:00:00Z"));
    expect(fires.map((f) => f.fate)).toEqual(["not_started", "not_started", "run", "run", "run", "ended"]);
    expect(fires[0]!.reason).toMatch(/start date/);
    expect(fires[5]!.reason).toMatch(/end date/);
  });

  it("excludes or moves what a calendar blocks, and a calendar outranks a pause", () => {
    const skip = schedule({ calendars: [{ calendar: calendar(["2026-12-25"]), policy: "skip" }], paused: pause(null) });
    const { fires } = planFires(skip, range("2026-12-24T00:00:00Z", "2026-12-26T00:00:00Z"));
    expect(brief(fires)).toEqual(["12-24T18:00→12-24T18:00 paused", "12-25T18:00→12-25T18:00 excluded"]);
    expect(fires[1]!.reason).toBe('excluded by calendar "Holidays"');
    expect(fires[1]!.calendar).toEqual({ id: "c1", name: "Holidays", policy: "skip" });
  });

  it("a fire moved onto another's instant: the later nominal fire is excluded, naming the collision", () => {
    const prev = schedule({ calendars: [{ calendar: calendar(["2026-12-25"]), policy: "shift_previous" }] });
    const a = planFires(prev, range("2026-12-23T00:00:00Z", "2026-12-26T00:00:00Z")).fires;
    expect(brief(a)).toEqual(["12-23T18:00→12-23T18:00 run", "12-24T18:00→12-24T18:00 run", "12-25T18:00→12-25T18:00 excluded"]);
    expect(a[2]!.reason).toMatch(
      /moved by calendar "Holidays"; excluded: the fire of 2026-12-24 18:00 UTC already runs at 2026-12-24 18:00 UTC/,
    );

    const next = schedule({ calendars: [{ calendar: calendar(["2026-12-25"]), policy: "shift_next" }] });
    const b = planFires(next, range("2026-12-24T00:00:00Z", "2026-12-27T00:00:00Z")).fires;
    expect(brief(b)).toEqual(["12-24T18:00→12-24T18:00 run", "12-25T18:00→12-26T18:00 run", "12-26T18:00→12-26T18:00 excluded"]);
    expect(b[2]!.reason).toMatch(/the fire of 2026-12-25 18:00 UTC already runs at 2026-12-26 18:00 UTC \(a calendar moved it there\)/);
  });

  it("decides a fire the same whichever range it is planned in (a move from before the range is seen)", () => {
    const next = schedule({ calendars: [{ calendar: calendar(["2026-12-25"]), policy: "shift_next" }] });
    const whole = planFires(next, range("2026-12-20T00:00:00Z", "2026-12-30T00:00:00Z")).fires;
    const late = planFires(next, range("2026-12-26T00:00:00Z", "2026-12-30T00:00:00Z")).fires;
    expect(brief(late)).toEqual(brief(whole.filter((f) => f.nominalAt >= new Date("2026-12-26T00:00:00Z"))));
    expect(late[0]!.fate).toBe("excluded");
  });

  it("a pause with until holds only the fires before it", () => {
    const s = schedule({ paused: pause(new Date("2026-12-22T12:00:00Z")) });
    const { fires } = planFires(s, range("2026-12-20T00:00:00Z", "2026-12-23T00:00:00Z"));
    expect(fires.map((f) => f.fate)).toEqual(["paused", "paused", "run"]);
    expect(fires[0]!.reason).toBe("held: the schedule is paused until 2026-12-22 12:00 UTC");
  });

  it("the newest fires held by a pause with until run at the resume, as its misfire policy says", () => {
    const r = range("2026-12-20T00:00:00Z", "2026-12-24T00:00:00Z");
    const until = pause(new Date("2026-12-22T12:00:00Z"));
    expect(planFires(schedule({ paused: until, misfirePolicy: "skip" }), r).fires.map((f) => f.fate)).toEqual([
      "paused",
      "paused",
      "run",
      "run",
    ]);
    const once = planFires(schedule({ paused: until, misfirePolicy: "run_once" }), r).fires;
    expect(once.map((f) => f.fate)).toEqual(["paused", "run", "run", "run"]);
    expect(once[1]!.reason).toMatch(/run at the resume \(misfire policy run_once\)/);
    const all = planFires(schedule({ paused: until, misfirePolicy: "catch_up", catchUpLimit: 5 }), r).fires;
    expect(all.map((f) => f.fate)).toEqual(["run", "run", "run", "run"]);
  });

  it("cuts at the limit and says so", () => {
    const { fires, cut } = planFires(schedule({ cron: "* * * * *" }), range("2026-12-20T00:00:00Z", "2026-12-21T00:00:00Z"), { limit: 5 });
    expect(fires).toHaveLength(5);
    expect(cut).toBe(true);
  });
});

function pause(until: Date | null): FirePlanSchedule["paused"] {
  return { at: new Date("2026-12-01T00:00:00Z"), by: "alice", reason: "maintenance", until };
}
