import { describe, expect, it } from "vitest";
import { applyCalendars, findBlock, wallText, type CalendarLink, type CalendarPolicy, type CalendarRules } from "./calendar-rules";
import { resolveWall } from "../schedules/zone-clock";

const BERLIN = "Europe/Berlin";
const LORD_HOWE = "Australia/Lord_Howe"; // +10:30 in winter, +11:00 in summer: a 30-minute shift

function calendar(rules: Partial<CalendarRules>): CalendarRules {
  return { id: rules.name ?? "c", name: "Business days", timezone: BERLIN, dates: [], weekdays: [], windows: [], ranges: [], ...rules };
}
const link = (c: CalendarRules, policy: CalendarPolicy): CalendarLink => ({ calendar: c, policy });
/** The instant of a wall time in a zone ("2026-12-25 18:00"); the first one in a repeat. */
function at(zone: string, text: string): number {
  const r = resolveWall(zone, Date.parse(`${text.replace(" ", "T")}Z`));
  if (r.kind === "gap") throw new Error(`${text} does not exist in ${zone}`);
  return r.kind === "single" ? r.at : r.first;
}
function shiftedTo(outcome: ReturnType<typeof applyCalendars>, zone = BERLIN): string {
  if (outcome.kind !== "shifted") throw new Error(`expected a shift, got ${JSON.stringify(outcome)}`);
  return wallText(zone, outcome.toMs);
}

const weekends = calendar({ name: "Business days", weekdays: [0, 6] });

describe("findBlock", () => {
  it("blocks a listed date, a listed weekday and nothing else, read in the calendar's zone", () => {
    const holidays = calendar({ name: "Holidays DE", dates: ["2026-12-25"] });
    expect(findBlock(holidays, at(BERLIN, "2026-12-25 00:30"))?.why).toBe("2026-12-25 is a blocked day");
    // 2026-12-24 23:30 UTC is already the 25th in Berlin.
    expect(findBlock(holidays, Date.parse("2026-12-24T23:30:00Z"))?.kind).toBe("day");
    expect(findBlock(holidays, Date.parse("2026-12-24T22:30:00Z"))).toBeNull();
    expect(findBlock(weekends, at(BERLIN, "2026-12-26 12:00"))?.why).toBe("Saturday is a blocked weekday (2026-12-26)");
    expect(findBlock(weekends, at(BERLIN, "2026-12-28 12:00"))).toBeNull();
  });

  it("measures a window in wall time on the day clocks spring forward (Europe/Berlin, 2026-03-29 02:00 → 03:00)", () => {
    const sunday = calendar({ windows: [{ weekdays: [0], start: "02:00", end: "04:00" }] });
    expect(findBlock(sunday, at(BERLIN, "2026-03-29 01:59"))).toBeNull();
    const block = findBlock(sunday, at(BERLIN, "2026-03-29 03:30"));
    expect(block?.why).toBe("inside the blocked window Sundays 02:00–04:00 Europe/Berlin");
    // 02:00 does not exist that day: the window opens when the clocks jump (01:00 UTC) and lasts one real hour.
    expect(new Date(block!.startMs).toISOString()).toBe("2026-03-29T01:00:00.000Z");
    expect(new Date(block!.endMs).toISOString()).toBe("2026-03-29T02:00:00.000Z");
    expect(findBlock(sunday, at(BERLIN, "2026-03-29 04:00"))).toBeNull();
  });

  it("blocks both passes of a repeated hour that a window covers (Europe/Berlin, 2026-10-25 03:00 → 02:00)", () => {
    const sunday = calendar({ windows: [{ weekdays: [0], start: "01:30", end: "02:30" }] });
    expect(findBlock(sunday, Date.parse("2026-10-25T00:15:00Z"))?.kind).toBe("window"); // 02:15 summer time
    expect(findBlock(sunday, Date.parse("2026-10-25T00:45:00Z"))).toBeNull(); // 02:45 summer time
    const second = findBlock(sunday, Date.parse("2026-10-25T01:15:00Z")); // 02:15 winter time
    expect(second?.kind).toBe("window");
    // The block is the window as opened and closed on the wall: 01:30 summer time to 02:30 winter time.
    expect(new Date(second!.startMs).toISOString()).toBe("2026-10-24T23:30:00.000Z");
    expect(new Date(second!.endMs).toISOString()).toBe("2026-10-25T01:30:00.000Z");
  });

  it("blocks an overnight window into the next day and an absolute range", () => {
    const c = calendar({
      windows: [{ weekdays: [5], start: "22:00", end: "06:00" }],
      ranges: [{ start: "2026-12-01T10:00:00Z", end: "2026-12-01T12:00:00Z", summary: "Migration" }],
    });
    expect(findBlock(c, at(BERLIN, "2026-12-05 03:00"))?.why).toBe("inside the blocked window Fridays 22:00–06:00 Europe/Berlin");
    expect(findBlock(c, at(BERLIN, "2026-12-05 06:00"))).toBeNull();
    expect(findBlock(c, at(BERLIN, "2026-12-04 21:59"))).toBeNull();
    expect(findBlock(c, Date.parse("2026-12-01T11:00:00Z"))?.why).toBe(
      'inside the blocked range "Migration" 2026-12-01 11:00–2026-12-01 13:00 Europe/Berlin',
    );
    expect(findBlock(c, Date.parse("2026-12-01T12:00:00Z"))).toBeNull();
  });

  it("finds the range holding an instant among many, overlapping ones included", () => {
    const hour = 3_600_000;
    const base = Date.parse("2027-01-01T00:00:00Z");
    // Every other hour for 2,000 hours, plus one long range under them all in the middle.
    const ranges = Array.from({ length: 1000 }, (_, i) => ({
      start: new Date(base + 2 * i * hour).toISOString(),
      end: new Date(base + (2 * i + 1) * hour).toISOString(),
    }));
    ranges.push({ start: new Date(base + 100 * hour).toISOString(), end: new Date(base + 110 * hour).toISOString() });
    const c = calendar({ timezone: "UTC", ranges });
    expect(findBlock(c, base + 4.5 * hour)?.startMs).toBe(base + 4 * hour);
    expect(findBlock(c, base + 5.5 * hour)).toBeNull();
    expect(findBlock(c, base + 105.5 * hour)).toMatchObject({ startMs: base + 100 * hour, endMs: base + 110 * hour });
    expect(findBlock(c, base + 1999.5 * hour)).toBeNull();
    expect(findBlock(c, base - 1)).toBeNull();
  });
});

describe("applyCalendars", () => {
  it("keeps a fire without calendars or outside every block", () => {
    expect(applyCalendars([], at(BERLIN, "2026-12-26 12:00"))).toEqual({ kind: "keep" });
    expect(applyCalendars([link(weekends, "skip")], at(BERLIN, "2026-12-28 12:00"))).toEqual({ kind: "keep" });
  });

  it("skip: excludes a blocked fire with a sentence naming the calendar and the day", () => {
    const holidays = calendar({ name: "Holidays DE", dates: ["2026-12-25"] });
    const outcome = applyCalendars([link(holidays, "skip")], at(BERLIN, "2026-12-25 18:00"));
    expect(outcome).toMatchObject({ kind: "excluded", policy: "skip", calendar: { name: "Holidays DE" } });
    expect(outcome.kind === "excluded" && outcome.reason).toBe('excluded by calendar "Holidays DE" (2026-12-25 is a blocked day)');
  });

  it("shift_previous: 18:00 on the last day of the month becomes 18:00 on the last business day", () => {
    // 2026-01-31 is a Saturday; the 30th a Friday, made a holiday too: the last business day is Thursday the 29th.
    const business = calendar({ name: "Business days", weekdays: [0, 6], dates: ["2026-01-30"] });
    const outcome = applyCalendars([link(business, "shift_previous")], at(BERLIN, "2026-01-31 18:00"));
    expect(shiftedTo(outcome)).toBe("2026-01-29 18:00");
    expect(outcome.kind === "shifted" && outcome.reason).toBe(
      'moved from 2026-01-31 18:00 to 2026-01-29 18:00 Europe/Berlin by calendar "Business days" (shift to the previous allowed time; Saturday is a blocked weekday (2026-01-31))',
    );
  });

  it("shift_next: a Saturday fire moves to Monday at the same wall time across the change to summer time", () => {
    // 2026-03-28 is a Saturday; the clocks change on Sunday the 29th: Monday 09:00 is 07:00 UTC, not 08:00.
    const outcome = applyCalendars([link(weekends, "shift_next")], at(BERLIN, "2026-03-28 09:00"));
    expect(shiftedTo(outcome)).toBe("2026-03-30 09:00");
    expect(outcome.kind === "shifted" && new Date(outcome.toMs).toISOString()).toBe("2026-03-30T07:00:00.000Z");
  });

  it("shift_next of a blocked day onto a wall time the next day skips lands where the gap ends", () => {
    const saturday = calendar({ dates: ["2026-03-28"] });
    const outcome = applyCalendars([link(saturday, "shift_next")], at(BERLIN, "2026-03-28 02:30"));
    expect(shiftedTo(outcome)).toBe("2026-03-29 03:00");
  });

  it("a window: shift_next moves to its end, shift_previous to just before it opens, on a DST day", () => {
    const sunday = calendar({ name: "Maintenance", windows: [{ weekdays: [0], start: "02:00", end: "04:00" }] });
    const fire = at(BERLIN, "2026-03-29 03:30");
    expect(shiftedTo(applyCalendars([link(sunday, "shift_next")], fire))).toBe("2026-03-29 04:00");
    // 02:00 was skipped: the window opened at 03:00 summer time, so just before it is 01:59:59 winter time.
    expect(shiftedTo(applyCalendars([link(sunday, "shift_previous")], fire))).toBe("2026-03-29 01:59:59");
  });

  it("a window on the day clocks fall back: shift_previous out of the second pass lands before the first", () => {
    const sunday = calendar({ windows: [{ weekdays: [0], start: "02:00", end: "03:00" }] });
    const outcome = applyCalendars([link(sunday, "shift_previous")], Date.parse("2026-10-25T01:30:00Z")); // 02:30 winter time
    expect(outcome.kind === "shifted" && new Date(outcome.toMs).toISOString()).toBe("2026-10-24T23:59:59.000Z"); // 01:59:59 summer time
    const next = applyCalendars([link(sunday, "shift_next")], Date.parse("2026-10-25T00:30:00Z")); // 02:30 summer time
    expect(next.kind === "shifted" && new Date(next.toMs).toISOString()).toBe("2026-10-25T02:00:00.000Z"); // 03:00 winter time
  });

  it("a 30-minute-shift zone (Australia/Lord_Howe, 2026-10-04 02:00 → 02:30): windows and days in wall time", () => {
    const sunday = calendar({ timezone: LORD_HOWE, windows: [{ weekdays: [0], start: "02:00", end: "03:00" }] });
    const fire = at(LORD_HOWE, "2026-10-04 02:45");
    expect(new Date(fire).toISOString()).toBe("2026-10-03T15:45:00.000Z");
    expect(shiftedTo(applyCalendars([link(sunday, "shift_next")], fire), LORD_HOWE)).toBe("2026-10-04 03:00");
    expect(shiftedTo(applyCalendars([link(sunday, "shift_previous")], fire), LORD_HOWE)).toBe("2026-10-04 01:59:59");
    // A blocked Saturday moves 02:15 to Sunday 02:15, which does not exist: the first instant after the gap.
    const saturday = calendar({ timezone: LORD_HOWE, dates: ["2026-10-03"] });
    expect(shiftedTo(applyCalendars([link(saturday, "shift_next")], at(LORD_HOWE, "2026-10-03 02:15")), LORD_HOWE)).toBe(
      "2026-10-04 02:30",
    );
  });

  it("an absolute range: shift_next to its end, shift_previous to just before its start", () => {
    const c = calendar({ ranges: [{ start: "2026-12-01T10:00:00Z", end: "2026-12-01T12:00:00Z" }] });
    const fire = Date.parse("2026-12-01T11:00:00Z");
    expect(shiftedTo(applyCalendars([link(c, "shift_next")], fire))).toBe("2026-12-01 13:00");
    expect(shiftedTo(applyCalendars([link(c, "shift_previous")], fire))).toBe("2026-12-01 10:59:59");
  });

  it("several calendars apply in order, and a shifted fire is checked against all of them again", () => {
    const holidays = calendar({ name: "Holidays DE", dates: ["2026-12-28"] });
    // Saturday → Monday (weekends), Monday is a holiday → Tuesday.
    const outcome = applyCalendars([link(weekends, "shift_next"), link(holidays, "shift_next")], at(BERLIN, "2026-12-26 18:00"));
    expect(shiftedTo(outcome)).toBe("2026-12-29 18:00");
    expect(outcome.kind === "shifted" && outcome.reason).toBe(
      'moved from 2026-12-26 18:00 to 2026-12-29 18:00 Europe/Berlin by calendar "Business days" (shift to the next allowed time; Saturday is a blocked weekday (2026-12-26)), then by calendar "Holidays DE" (shift to the next allowed time; 2026-12-28 is a blocked day)',
    );
    expect(outcome.kind === "shifted" && outcome.calendar.name).toBe("Business days");
    // A shift that lands in a calendar that skips: excluded, saying where it had been moved.
    const skipped = applyCalendars([link(weekends, "shift_next"), link(holidays, "skip")], at(BERLIN, "2026-12-26 18:00"));
    expect(skipped.kind === "excluded" && skipped.reason).toBe(
      'excluded by calendar "Holidays DE" (2026-12-28 is a blocked day) after moved from 2026-12-26 18:00 to 2026-12-28 18:00 Europe/Berlin by calendar "Business days" (shift to the next allowed time; Saturday is a blocked weekday (2026-12-26))',
    );
  });

  it("answers excluded with a reason when no allowed time is within reach or calendars push a fire back and forth", () => {
    const never = calendar({ name: "Never", weekdays: [0, 1, 2, 3, 4, 5, 6] });
    const none = applyCalendars([link(never, "shift_next")], at(BERLIN, "2026-12-26 18:00"));
    expect(none.kind === "excluded" && none.reason).toBe(
      'excluded by calendar "Never" (Saturday is a blocked weekday (2026-12-26)): no allowed time within 366 days to shift it to (shift to the next allowed time)',
    );
    const a = calendar({ name: "A", dates: ["2026-12-01"] });
    const b = calendar({ name: "B", dates: ["2026-12-02"] });
    const pingPong = applyCalendars([link(a, "shift_next"), link(b, "shift_previous")], at(BERLIN, "2026-12-01 09:00"));
    expect(pingPong.kind === "excluded" && pingPong.reason).toBe(
      'excluded: calendars "A", "B" shift it back and forth without reaching an allowed time',
    );
  });
});
