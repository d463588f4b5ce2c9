import { describe, expect, it } from "vitest";
import type { CalendarRules } from "../calendars/calendar-rules";
import { planFires, type FirePlanSchedule } from "./fire-plan";
import { triggerSchema } from "./trigger";

// planFires with the real calendar rules (calendar-rules.ts), where fire-plan.test.ts uses a stand-in: what an
// operator sees for business-day calendars.

const businessDays = (over: Partial<CalendarRules> = {}): CalendarRules => ({
  id: "c-business",
  name: "Business days DE",
  timezone: "Europe/Berlin",
  dates: ["2026-12-24", "2026-12-25", "2026-12-31"],
  weekdays: [0, 6],
  windows: [],
  ranges: [],
  ...over,
});

function schedule(cron: string, over: Partial<FirePlanSchedule> = {}): FirePlanSchedule {
  return {
    id: "s1",
    trigger: triggerSchema.parse({ kind: "cron", cron, timezone: "Europe/Berlin" }),
    createdAt: new Date("2026-01-01T00:00:00Z"),
    startJitterMs: 0,
    paused: null,
    timezone: "Europe/Berlin",
    startsAt: null,
    endsAt: null,
    calendars: [],
    ...over,
  };
}

const range = (from: string, until: string) => ({ from: new Date(from), until: new Date(until) });
const brief = (fires: ReturnType<typeof planFires>["fires"]) =>
  fires.map((f) => `${f.nominalAt.toISOString().slice(0, 16)}→${f.plannedAt.toISOString().slice(0, 16)} ${f.fate}`);

describe("planFires with the real calendar rules", () => {
  it("moves 18:00 on the last day of a month that falls on a Saturday (or a holiday) to the previous business day", () => {
    const s = schedule("0 18 31 * *", { calendars: [{ calendar: businessDays(), policy: "shift_previous" }] });
    const { fires } = planFires(s, range("2026-10-01T00:00:00Z", "2027-01-01T00:00:00Z"));
    // 2026-10-31 is a Saturday → Friday 10-30 18:00 Berlin (CET, 17:00 UTC); 12-31 is a blocked day, 12-30 is a
    // Wednesday.
    expect(brief(fires)).toEqual(["2026-10-31T17:00→2026-10-30T17:00 run", "2026-12-31T17:00→2026-12-30T17:00 run"]);
    expect(fires[0]!.calendar).toEqual({ id: "c-business", name: "Business days DE", policy: "shift_previous" });
    expect(fires[0]!.reason).toBe(
      'moved from 2026-10-31 18:00 to 2026-10-30 18:00 Europe/Berlin by calendar "Business days DE" (shift to the previous allowed time; Saturday is a blocked weekday (2026-10-31))',
    );
    expect(fires[1]!.reason).toContain("2026-12-31 is a blocked day");
  });

  it("skips with skip, moves forward with shift_next, and a moved fire landing on another's instant is excluded naming it", () => {
    const skip = planFires(
      schedule("0 18 * * *", { calendars: [{ calendar: businessDays(), policy: "skip" }] }),
      range("2026-12-23T00:00:00Z", "2026-12-28T00:00:00Z"),
    ).fires;
    expect(brief(skip)).toEqual([
      "2026-12-23T17:00→2026-12-23T17:00 run",
      "2026-12-24T17:00→2026-12-24T17:00 excluded",
      "2026-12-25T17:00→2026-12-25T17:00 excluded",
      "2026-12-26T17:00→2026-12-26T17:00 excluded",
      "2026-12-27T17:00→2026-12-27T17:00 excluded",
    ]);
    expect(skip[1]!.reason).toMatch(/^excluded by calendar "Business days DE" \(2026-12-24 is a blocked day\)/);

    const next = planFires(
      schedule("0 18 * * *", { calendars: [{ calendar: businessDays(), policy: "shift_next" }] }),
      range("2026-12-23T00:00:00Z", "2026-12-29T00:00:00Z"),
    ).fires;
    // 24, 25, 26, 27 all move to Monday 28 18:00: the first keeps it, the others (and the 28th's own fire) are
    // excluded naming the collision.
    expect(brief(next)).toEqual([
      "2026-12-23T17:00→2026-12-23T17:00 run",
      "2026-12-24T17:00→2026-12-28T17:00 run",
      "2026-12-25T17:00→2026-12-25T17:00 excluded",
      "2026-12-26T17:00→2026-12-26T17:00 excluded",
      "2026-12-27T17:00→2026-12-27T17:00 excluded",
      "2026-12-28T17:00→2026-12-28T17:00 excluded",
    ]);
    expect(next[5]!.reason).toContain("the fire of 2026-12-24 17:00 UTC already runs at 2026-12-28 17:00 UTC (a calendar moved it there)");
  });

  it("a window shifts to its end (next) or just before it opens (previous)", () => {
    const freeze = businessDays({ dates: [], weekdays: [], windows: [{ weekdays: [0, 1, 2, 3, 4, 5, 6], start: "02:00", end: "04:00" }] });
    const at = range("2026-12-01T00:00:00Z", "2026-12-02T00:00:00Z");
    const next = planFires(schedule("30 2 * * *", { calendars: [{ calendar: freeze, policy: "shift_next" }] }), at).fires;
    expect(brief(next)).toEqual(["2026-12-01T01:30→2026-12-01T03:00 run"]);
    const previous = planFires(schedule("30 2 * * *", { calendars: [{ calendar: freeze, policy: "shift_previous" }] }), at).fires;
    expect(brief(previous)).toEqual(["2026-12-01T01:30→2026-12-01T00:59 run"]);
  });
});
