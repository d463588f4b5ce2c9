import { describe, expect, it } from "vitest";
import { ValidationError } from "../errors";
import { parseIcs } from "./import-ics";

const ics = (...events: string[]) =>
  ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Vigil tests//EN", ...events, "END:VCALENDAR"].join("\r\n");
const from = new Date("2026-03-01T00:00:00Z");
const read = (text: string) => parseIcs(text, { timezone: "Europe/Berlin", from });

describe("parseIcs", () => {
  it("reads all-day events as blocked dates (a multi-day event as each of its days)", () => {
    const r = read(
      ics("BEGIN:VEVENT", "UID:x", "DTSTART;VALUE=DATE:20261225", "DTEND;VALUE=DATE:20261227", "SUMMARY:Christmas", "END:VEVENT"),
    );
    expect(r).toMatchObject({ dates: ["2026-12-25", "2026-12-26"], ranges: [], events: 1, skipped: 0 });
  });

  it("expands a weekly event with a TZID across the change to summer time in wall time, leaving out EXDATEs", () => {
    const r = read(
      ics(
        "BEGIN:VEVENT",
        "UID:maint",
        "DTSTART;TZID=Europe/Berlin:20260322T010000",
        "DTEND;TZID=Europe/Berlin:20260322T013000",
        "RRULE:FREQ=WEEKLY;BYDAY=SU;COUNT=4",
        "EXDATE;TZID=Europe/Berlin:20260405T010000",
        "SUMMARY:Maintenance",
        "END:VEVENT",
      ),
    );
    // 01:00 is 00:00 UTC in winter (still on 2026-03-29: the clocks change at 02:00) and 23:00 UTC the evening
    // before in summer.
    expect(r.ranges).toEqual([
      { start: "2026-03-22T00:00:00.000Z", end: "2026-03-22T00:30:00.000Z", summary: "Maintenance" },
      { start: "2026-03-29T00:00:00.000Z", end: "2026-03-29T00:30:00.000Z", summary: "Maintenance" },
      { start: "2026-04-11T23:00:00.000Z", end: "2026-04-11T23:30:00.000Z", summary: "Maintenance" },
    ]);
  });

  it("reads UTC times as they are, floating times in the calendar's zone, and a file's own VTIMEZONE", () => {
    const r = read(
      ics(
        "BEGIN:VTIMEZONE",
        "TZID:Custom Plus Three",
        "BEGIN:STANDARD",
        "DTSTART:19700101T000000",
        "TZOFFSETFROM:+0300",
        "TZOFFSETTO:+0300",
        "END:STANDARD",
        "END:VTIMEZONE",
        "BEGIN:VEVENT",
        "UID:utc",
        "DTSTART:20261201T100000Z",
        "DTEND:20261201T120000Z",
        "END:VEVENT",
        "BEGIN:VEVENT",
        "UID:floating",
        "DTSTART:20261202T100000",
        "DURATION:PT1H",
        "END:VEVENT",
        "BEGIN:VEVENT",
        "UID:custom",
        "DTSTART;TZID=Custom Plus Three:20261203T100000",
        "DTEND;TZID=Custom Plus Three:20261203T110000",
        "END:VEVENT",
      ),
    );
    expect(r.ranges.map((x) => [x.start, x.end])).toEqual([
      ["2026-12-01T10:00:00.000Z", "2026-12-01T12:00:00.000Z"],
      ["2026-12-02T09:00:00.000Z", "2026-12-02T10:00:00.000Z"],
      ["2026-12-03T07:00:00.000Z", "2026-12-03T08:00:00.000Z"],
    ]);
  });

  it("leaves out cancelled events and events that ended before the horizon", () => {
    const r = read(
      ics(
        "BEGIN:VEVENT",
        "UID:old",
        "DTSTART:20250101T100000Z",
        "DTEND:20250101T110000Z",
        "END:VEVENT",
        "BEGIN:VEVENT",
        "UID:off",
        "STATUS:CANCELLED",
        "DTSTART:20261201T100000Z",
        "DTEND:20261201T110000Z",
        "END:VEVENT",
      ),
    );
    expect(r).toMatchObject({ dates: [], ranges: [], events: 1, skipped: 2 });
  });

  it("expands a daily rule only two years ahead", () => {
    const r = read(ics("BEGIN:VEVENT", "UID:d", "DTSTART;VALUE=DATE:20260301", "RRULE:FREQ=DAILY", "END:VEVENT"));
    expect(r.dates[0]).toBe("2026-03-01");
    expect(r.dates.length).toBe(730);
  });

  it("refuses a file that is not iCalendar, has no events or a broken event, with a message naming the problem", () => {
    const refuse = (text: string) => {
      try {
        read(text);
      } catch (err) {
        expect(err).toBeInstanceOf(ValidationError);
        expect((err as ValidationError).code).toBe("invalid_ics");
        return (err as ValidationError).message;
      }
      throw new Error("accepted");
    };
    expect(refuse("this is not a calendar")).toMatch(/^The file is not a valid iCalendar \(\.ics\) file/);
    expect(refuse(ics())).toBe("The .ics file holds no events (VEVENT): nothing to block");
    expect(refuse(ics("BEGIN:VEVENT", "UID:n", "SUMMARY:No start", "END:VEVENT"))).toBe('Event "No start" has no start (DTSTART)');
  });
});
