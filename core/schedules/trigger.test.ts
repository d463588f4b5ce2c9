import { describe, expect, it } from "vitest";
import { ValidationError } from "../errors";
import { assertOnceInFuture, triggerSchema, type TriggerInput } from "./trigger";

/** The issues a person would see for this input: path joined with dots, and the message. */
function issuesOf(input: unknown): { path: string; message: string }[] {
  const result = triggerSchema.safeParse(input);
  if (result.success) return [];
  return result.error.issues.map((i) => ({ path: i.path.join("."), message: i.message }));
}

const cron = (expr: string, timezone = "Europe/Berlin"): TriggerInput => ({ kind: "cron", cron: expr, timezone });

describe("triggerSchema: valid triggers", () => {
  it("accepts the three kinds from the API contract and fills in the DST policy defaults", () => {
    expect(triggerSchema.parse(cron("*/10 * * * * *"))).toEqual({
      kind: "cron",
      cron: "*/10 * * * * *",
      timezone: "Europe/Berlin",
      dst: { gap: "shift", repeat: "once" },
    });
    expect(triggerSchema.parse({ kind: "interval", everySeconds: 30 })).toEqual({ kind: "interval", everySeconds: 30 });
    expect(triggerSchema.parse({ kind: "once", at: "2026-12-01T09:00:00Z" })).toEqual({ kind: "once", at: "2026-12-01T09:00:00Z" });
  });

  it("keeps an explicit DST policy and fills only the missing half", () => {
    const parsed = triggerSchema.parse({ ...cron("30 2 * * *"), dst: { gap: "skip" } });
    expect(parsed).toMatchObject({ dst: { gap: "skip", repeat: "once" } });
  });

  it("accepts names, L, # and a fifth Friday of February (first fires in 2036, still not 'never')", () => {
    for (const expr of ["0 9 * JAN-MAR MON-FRI", "0 0 L * *", "0 0 * * FRI#5", "0 0 * 2 FRI#5", "0 0 29 2 *", "0 0 * * 7"]) {
      expect(issuesOf(cron(expr)), expr).toEqual([]);
    }
  });
});

describe("triggerSchema: cron messages", () => {
  const cases: [string, string][] = [
    ["* * *", "Cron expression must have 5 fields (minute hour day month weekday) or 6 (with leading seconds); got 3"],
    ["0 0 1 1 * 2026 5", "Cron expression must have 5 fields (minute hour day month weekday) or 6 (with leading seconds); got 7"],
    ["", "Cron expression must have 5 fields (minute hour day month weekday) or 6 (with leading seconds); got 0"],
    ["@daily", 'Cron nicknames such as @daily are not supported; write the fields out, e.g. "0 0 * * *" for daily'],
    // croner itself says "day: 31" and "month: 12" here, one off from what was written.
    ["0 0 32 * *", "The day-of-month value 32 is out of range; use 1–31"],
    ["0 0 1 13 *", "The month value 13 is out of range; use 1–12"],
    ["0 24 * * *", "The hour value 24 is out of range; use 0–23"],
    ["60 * * * * *", "The seconds value 60 is out of range; use 0–59"],
    [
      "0 0 1 1 * 2026",
      "The weekday value 2026 is out of range; use 0–7 (with 6 fields the first is seconds; a year field is not supported)",
    ],
    ["*/0 * * * *", 'The minute field entry "*/0" has a step of 0, which never advances; use 1 or more'],
    ["*/61 * * * *", 'The minute field entry "*/61" steps by 61, more than the field\'s whole range 0–59'],
    ["5/15 * * * *", 'The minute field entry "5/15" must step from * or a range, as in */15 or 0-59/15'],
    ["0 17-9 * * *", 'The hour range "17-9" runs backwards; write the smaller value first, e.g. 9-17'],
    ["1,,2 * * * *", 'The minute field "1,,2" has an empty entry (a doubled or trailing comma)'],
    ["a * * * *", 'The cron expression has characters cron does not understand in "a"'],
    ["0 0 30 2 *", 'Cron expression "0 0 30 2 *" never fires: February never has day 30'],
    ["0 0 31 4,6,9,11 *", 'Cron expression "0 0 31 4,6,9,11 *" never fires: none of April, June, September, November has day 31'],
    ["0 0 30,31 FEB *", 'Cron expression "0 0 30,31 FEB *" never fires: February never has days 30, 31'],
    ["0 0 31W 4 *", 'Cron expression "0 0 31W 4 *" never fires: no date matches its day-of-month, month and weekday fields together'],
  ];
  it.each(cases)("%j → %s", (expr, message) => {
    expect(issuesOf(cron(expr))).toEqual([{ path: "cron", message }]);
  });

  it("rejects a non-string cron with a message on the cron path", () => {
    expect(issuesOf({ kind: "cron", cron: 5, timezone: "UTC" })).toEqual([
      { path: "cron", message: 'Cron expression must be a string such as "*/15 * * * *"' },
    ]);
  });
});

describe("triggerSchema: time zone messages", () => {
  it.each([
    ["Mars/Base", 'Unknown time zone "Mars/Base"; use an IANA name such as Europe/Berlin'],
    // croner would read "" as the host's zone: the schedule would follow whichever server ran it.
    ["", "Time zone is empty; use an IANA name such as Europe/Berlin, or UTC"],
    ["  ", "Time zone is empty; use an IANA name such as Europe/Berlin, or UTC"],
    ["+02:00", 'Time zone "+02:00" is a fixed offset; use an IANA name such as Europe/Berlin so DST is followed, or UTC'],
  ])("%j → %s", (timezone, message) => {
    expect(issuesOf(cron("0 9 * * *", timezone))).toEqual([{ path: "timezone", message }]);
  });

  it("accepts IANA names, including ones without DST", () => {
    for (const zone of ["UTC", "Asia/Kolkata", "Australia/Lord_Howe", "America/New_York"]) {
      expect(issuesOf(cron("0 9 * * *", zone)), zone).toEqual([]);
    }
  });

  it("reports a bad cron and a bad zone together, each on its own path", () => {
    expect(issuesOf(cron("* * *", "Mars/Base")).map((i) => i.path)).toEqual(["cron", "timezone"]);
  });
});

describe("triggerSchema: interval, once and kind messages", () => {
  it.each([
    [0, "Interval must be at least 1 second; got 0"],
    [-5, "Interval must be at least 1 second; got -5"],
    [1.5, "Interval must be a whole number of seconds; got 1.5"],
    [31 * 86_400 + 1, "Interval must be at most 31 days (2678400 seconds); got 2678401"],
    ["30", "Interval (everySeconds) must be a number of seconds, e.g. 30"],
  ])("everySeconds %j → %s", (everySeconds, message) => {
    expect(issuesOf({ kind: "interval", everySeconds })).toEqual([{ path: "everySeconds", message }]);
  });

  it("accepts an interval of exactly 31 days with an anchor", () => {
    expect(issuesOf({ kind: "interval", everySeconds: 31 * 86_400, anchor: "2026-01-01T00:00:00+01:00" })).toEqual([]);
  });

  it.each([
    ["2026-12-01 09:00"],
    ["2026-12-01T09:00:00"], // no offset: which zone's 09:00?
    ["2026-02-30T09:00:00Z"],
  ])("rejects the one-off time %j", (at) => {
    expect(issuesOf({ kind: "once", at })).toEqual([
      {
        path: "at",
        message: `One-off time "${at}" is not an ISO 8601 date-time with seconds and a UTC offset (e.g. 2026-12-01T09:00:00Z or 2026-12-01T10:00:00+01:00)`,
      },
    ]);
  });

  it("rejects a bad interval anchor on the anchor path", () => {
    expect(issuesOf({ kind: "interval", everySeconds: 60, anchor: "yesterday" }).map((i) => i.path)).toEqual(["anchor"]);
  });

  it("rejects an unknown kind on the kind path, and stray keys instead of dropping them", () => {
    expect(issuesOf({ kind: "weekly" })).toEqual([{ path: "kind", message: 'Trigger kind must be "cron", "interval" or "once"' }]);
    expect(issuesOf({ kind: "interval", everySeconds: 30, anchr: "2026-01-01T00:00:00Z" })).toEqual([
      { path: "", message: 'Unrecognized key: "anchr"' },
    ]);
  });

  it("rejects a DST policy that is not one of the options", () => {
    expect(issuesOf({ ...cron("30 2 * * *"), dst: { gap: "later" } })).toEqual([
      { path: "dst.gap", message: 'DST gap policy must be "shift" or "skip"' },
    ]);
  });
});

describe("assertOnceInFuture", () => {
  const dbNow = new Date("2026-06-01T00:00:00.000Z");

  it("refuses a one-off at or before the database time, naming both times", () => {
    const past = triggerSchema.parse({ kind: "once", at: "2026-01-01T00:00:00Z" });
    expect(() => assertOnceInFuture(past, dbNow)).toThrow(ValidationError);
    expect(() => assertOnceInFuture(past, dbNow)).toThrow(
      "The one-off time 2026-01-01T00:00:00Z is in the past (database time is 2026-06-01T00:00:00.000Z)",
    );
    const now = triggerSchema.parse({ kind: "once", at: "2026-06-01T02:00:00+02:00" });
    expect(() => assertOnceInFuture(now, dbNow)).toThrow(ValidationError);
  });

  it("puts the message on the trigger.at field", () => {
    const past = triggerSchema.parse({ kind: "once", at: "2026-01-01T00:00:00Z" });
    try {
      assertOnceInFuture(past, dbNow);
      expect.unreachable("should have thrown");
    } catch (err) {
      expect((err as ValidationError).fields).toEqual({ "trigger.at": expect.stringContaining("is in the past") });
    }
  });

  it("lets a future one-off and other kinds through", () => {
    expect(() => assertOnceInFuture(triggerSchema.parse({ kind: "once", at: "2026-06-01T00:00:01Z" }), dbNow)).not.toThrow();
    expect(() => assertOnceInFuture(triggerSchema.parse(cron("0 9 * * *")), dbNow)).not.toThrow();
  });
});
