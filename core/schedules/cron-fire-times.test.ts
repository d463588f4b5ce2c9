import { Cron } from "croner";
import { describe, expect, it } from "vitest";
import { computeNextFireTimes, type FireTime } from "./compute-next-fire-times";
import { triggerSchema, type TriggerInput } from "./trigger";

// DST behaviour on known 2026 transitions. Every instant below was worked out by hand from the zone rules:
// New York 03-08 02:00 EST→03:00 EDT (07:00Z), 11-01 02:00 EDT→01:00 EST (06:00Z); Berlin 03-29 02:00→03:00
// (01:00Z), 10-25 03:00→02:00 (01:00Z); Sydney 04-05 03:00→02:00 (04-04 16:00Z), 10-04 02:00→03:00 (10-03
// 16:00Z); Lord Howe (30-minute shift) 04-05 02:00→01:30 (04-04 15:00Z), 10-04 02:00→02:30 (10-03 15:30Z).

type Cronish = Omit<Extract<TriggerInput, { kind: "cron" }>, "kind">;
const cron = (t: Cronish) => triggerSchema.parse({ kind: "cron", ...t });
const d = (iso: string) => new Date(iso);
/** Compact rows: instant, local time, offset and the DST flag kind (with "skipped" when set). */
const rows = (fires: FireTime[]) =>
  fires.map((f) => [
    f.at.toISOString().replace(".000Z", "Z"),
    f.localTime,
    f.utcOffset,
    f.dst ? (f.dst.skipped ? "skipped" : f.dst.kind) : "",
  ]);

describe("spring forward: a fixed time in the gap", () => {
  const ny = { cron: "30 2 * * *", timezone: "America/New_York" };

  it("shift (default) runs once at the first valid instant after the gap, flagged with a note", () => {
    const fires = computeNextFireTimes(cron(ny), d("2026-03-07T00:00:00Z"), 3);
    expect(rows(fires)).toEqual([
      ["2026-03-07T07:30:00Z", "2026-03-07 02:30:00", "-05:00", ""],
      ["2026-03-08T07:00:00Z", "2026-03-08 03:00:00", "-04:00", "gap"],
      ["2026-03-09T06:30:00Z", "2026-03-09 02:30:00", "-04:00", ""],
    ]);
    expect(fires[1]?.dst?.note).toBe("02:30 does not exist on 2026-03-08 in America/New_York (clocks jump 02:00→03:00); runs at 03:00");
  });

  it("skip drops that day's fire", () => {
    const fires = computeNextFireTimes(cron({ ...ny, dst: { gap: "skip" } }), d("2026-03-07T00:00:00Z"), 3);
    expect(rows(fires).map((r) => r[0])).toEqual(["2026-03-07T07:30:00Z", "2026-03-09T06:30:00Z", "2026-03-10T06:30:00Z"]);
  });

  it("skip with includeSkipped shows the dropped time, flagged skipped, without counting it as a fire", () => {
    const fires = computeNextFireTimes(cron({ ...ny, dst: { gap: "skip" } }), d("2026-03-07T00:00:00Z"), 2, { includeSkipped: true });
    expect(rows(fires)).toEqual([
      ["2026-03-07T07:30:00Z", "2026-03-07 02:30:00", "-05:00", ""],
      ["2026-03-08T07:00:00Z", "2026-03-08 02:30:00", "-04:00", "skipped"],
      ["2026-03-09T06:30:00Z", "2026-03-09 02:30:00", "-04:00", ""],
    ]);
    expect(fires[1]?.dst?.note).toBe(
      '02:30 does not exist on 2026-03-08 in America/New_York (clocks jump 02:00→03:00); skipped (DST gap policy "skip")',
    );
  });

  it("Berlin: 02:30 on 2026-03-29 runs at 03:00 CEST", () => {
    const fires = computeNextFireTimes(cron({ cron: "30 2 * * *", timezone: "Europe/Berlin" }), d("2026-03-28T00:00:00Z"), 3);
    expect(rows(fires)).toEqual([
      ["2026-03-28T01:30:00Z", "2026-03-28 02:30:00", "+01:00", ""],
      ["2026-03-29T01:00:00Z", "2026-03-29 03:00:00", "+02:00", "gap"],
      ["2026-03-30T00:30:00Z", "2026-03-30 02:30:00", "+02:00", ""],
    ]);
  });

  it("Sydney (southern hemisphere, October): 02:30 on 2026-10-04 runs at 03:00 AEDT", () => {
    const fires = computeNextFireTimes(cron({ cron: "30 2 * * *", timezone: "Australia/Sydney" }), d("2026-10-02T00:00:00Z"), 3);
    expect(rows(fires)).toEqual([
      ["2026-10-02T16:30:00Z", "2026-10-03 02:30:00", "+10:00", ""],
      ["2026-10-03T16:00:00Z", "2026-10-04 03:00:00", "+11:00", "gap"],
      ["2026-10-04T15:30:00Z", "2026-10-05 02:30:00", "+11:00", ""],
    ]);
  });

  it("Lord Howe's 30-minute jump: 02:15 on 2026-10-04 runs at 02:30", () => {
    const fires = computeNextFireTimes(cron({ cron: "15 2 * * *", timezone: "Australia/Lord_Howe" }), d("2026-10-02T00:00:00Z"), 3);
    expect(rows(fires)).toEqual([
      ["2026-10-02T15:45:00Z", "2026-10-03 02:15:00", "+10:30", ""],
      ["2026-10-03T15:30:00Z", "2026-10-04 02:30:00", "+11:00", "gap"],
      ["2026-10-04T15:15:00Z", "2026-10-05 02:15:00", "+11:00", ""],
    ]);
    expect(fires[1]?.dst?.note).toBe("02:15 does not exist on 2026-10-04 in Australia/Lord_Howe (clocks jump 02:00→02:30); runs at 02:30");
  });

  it("several fixed times in one gap run once, together with a real fire at the gap's end", () => {
    const fires = computeNextFireTimes(cron({ cron: "0,30 2,3 * * *", timezone: "Europe/Berlin" }), d("2026-03-28T23:00:00Z"), 2);
    expect(rows(fires).map((r) => r[0])).toEqual(["2026-03-29T01:00:00Z", "2026-03-29T01:30:00Z"]);
    expect(fires[0]?.dst?.note).toBe(
      "02:00 and 02:30 do not exist on 2026-03-29 in Europe/Berlin (clocks jump 02:00→03:00); they run once at 03:00",
    );
  });

  it("an expression repeating within the day keeps its elapsed-time rhythm: no extra fire, next fire flagged", () => {
    const hourly = computeNextFireTimes(cron({ cron: "30 * * * *", timezone: "America/New_York" }), d("2026-03-08T06:00:00Z"), 3);
    expect(rows(hourly)).toEqual([
      ["2026-03-08T06:30:00Z", "2026-03-08 01:30:00", "-05:00", ""],
      ["2026-03-08T07:30:00Z", "2026-03-08 03:30:00", "-04:00", "gap"],
      ["2026-03-08T08:30:00Z", "2026-03-08 04:30:00", "-04:00", ""],
    ]);
    const quarter = computeNextFireTimes(cron({ cron: "*/15 * * * *", timezone: "America/New_York" }), d("2026-03-08T06:40:00Z"), 3);
    expect(rows(quarter).map((r) => r[0])).toEqual(["2026-03-08T06:45:00Z", "2026-03-08T07:00:00Z", "2026-03-08T07:15:00Z"]);
    expect(quarter[1]?.dst?.note).toBe(
      "02:00 to 02:45 (4 times) do not exist on 2026-03-08 in America/New_York (clocks jump 02:00→03:00); " +
        "not run, as this schedule repeats within the day and keeps its rhythm in elapsed time",
    );
  });

  it("a seconds-field expression steps straight over the gap", () => {
    const fires = computeNextFireTimes(cron({ cron: "*/10 * * * * *", timezone: "Europe/Berlin" }), d("2026-03-29T00:59:40Z"), 3);
    expect(rows(fires).map((r) => r.slice(0, 2))).toEqual([
      ["2026-03-29T00:59:50Z", "2026-03-29 01:59:50"],
      ["2026-03-29T01:00:00Z", "2026-03-29 03:00:00"],
      ["2026-03-29T01:00:10Z", "2026-03-29 03:00:10"],
    ]);
  });
});

describe("fall back: a fixed time that happens twice", () => {
  const ny = { cron: "30 1 * * *", timezone: "America/New_York" };

  it("once (default) runs at the first occurrence only, flagged", () => {
    const fires = computeNextFireTimes(cron(ny), d("2026-10-31T00:00:00Z"), 3);
    expect(rows(fires)).toEqual([
      ["2026-10-31T05:30:00Z", "2026-10-31 01:30:00", "-04:00", ""],
      ["2026-11-01T05:30:00Z", "2026-11-01 01:30:00", "-04:00", "repeat"],
      ["2026-11-02T06:30:00Z", "2026-11-02 01:30:00", "-05:00", ""],
    ]);
    expect(fires[1]?.dst?.note).toBe(
      "01:30 occurs twice on 2026-11-01 in America/New_York (clocks go back 02:00→01:00); runs once, at the first (-04:00)",
    );
  });

  it("once does not fire again when planning resumes during the second pass", () => {
    expect(rows(computeNextFireTimes(cron(ny), d("2026-11-01T06:00:00Z"), 1))[0]?.[0]).toBe("2026-11-02T06:30:00Z");
  });

  it("twice runs at both instants, both flagged", () => {
    const fires = computeNextFireTimes(cron({ ...ny, dst: { repeat: "twice" } }), d("2026-10-31T12:00:00Z"), 3);
    expect(rows(fires)).toEqual([
      ["2026-11-01T05:30:00Z", "2026-11-01 01:30:00", "-04:00", "repeat"],
      ["2026-11-01T06:30:00Z", "2026-11-01 01:30:00", "-05:00", "repeat"],
      ["2026-11-02T06:30:00Z", "2026-11-02 01:30:00", "-05:00", ""],
    ]);
    expect(fires[1]?.dst?.note).toBe(
      "01:30 occurs twice on 2026-11-01 in America/New_York (clocks go back 02:00→01:00); runs at both, this is the second (-05:00)",
    );
  });

  it("a list of fixed hours counts as fixed: 01:30 and 13:30 do not double", () => {
    const fires = computeNextFireTimes(cron({ cron: "30 1,13 * * *", timezone: "America/New_York" }), d("2026-11-01T00:00:00Z"), 2);
    expect(rows(fires).map((r) => r[0])).toEqual(["2026-11-01T05:30:00Z", "2026-11-01T18:30:00Z"]);
  });

  it("*/15 fires in both passes of the repeated hour (distinct instants), each flagged", () => {
    const fires = computeNextFireTimes(cron({ cron: "*/15 * * * *", timezone: "America/New_York" }), d("2026-11-01T05:20:00Z"), 7);
    expect(rows(fires)).toEqual([
      ["2026-11-01T05:30:00Z", "2026-11-01 01:30:00", "-04:00", "repeat"],
      ["2026-11-01T05:45:00Z", "2026-11-01 01:45:00", "-04:00", "repeat"],
      ["2026-11-01T06:00:00Z", "2026-11-01 01:00:00", "-05:00", "repeat"],
      ["2026-11-01T06:15:00Z", "2026-11-01 01:15:00", "-05:00", "repeat"],
      ["2026-11-01T06:30:00Z", "2026-11-01 01:30:00", "-05:00", "repeat"],
      ["2026-11-01T06:45:00Z", "2026-11-01 01:45:00", "-05:00", "repeat"],
      ["2026-11-01T07:00:00Z", "2026-11-01 02:00:00", "-05:00", ""],
    ]);
  });

  it("Berlin: hourly fires stay an hour apart through 2026-10-25", () => {
    const fires = computeNextFireTimes(cron({ cron: "0 * * * *", timezone: "Europe/Berlin" }), d("2026-10-24T23:30:00Z"), 3);
    expect(rows(fires)).toEqual([
      ["2026-10-25T00:00:00Z", "2026-10-25 02:00:00", "+02:00", "repeat"],
      ["2026-10-25T01:00:00Z", "2026-10-25 02:00:00", "+01:00", "repeat"],
      ["2026-10-25T02:00:00Z", "2026-10-25 03:00:00", "+01:00", ""],
    ]);
  });

  it("Berlin: a daily 02:30 runs once on 2026-10-25, in summer time", () => {
    const fires = computeNextFireTimes(cron({ cron: "30 2 * * *", timezone: "Europe/Berlin" }), d("2026-10-24T12:00:00Z"), 2);
    expect(rows(fires).map((r) => r.slice(0, 3))).toEqual([
      ["2026-10-25T00:30:00Z", "2026-10-25 02:30:00", "+02:00"],
      ["2026-10-26T01:30:00Z", "2026-10-26 02:30:00", "+01:00"],
    ]);
  });

  it("Sydney (southern hemisphere, April): 02:30 on 2026-04-05 runs once, at AEDT", () => {
    const fires = computeNextFireTimes(cron({ cron: "30 2 * * *", timezone: "Australia/Sydney" }), d("2026-04-03T00:00:00Z"), 3);
    expect(rows(fires)).toEqual([
      ["2026-04-03T15:30:00Z", "2026-04-04 02:30:00", "+11:00", ""],
      ["2026-04-04T15:30:00Z", "2026-04-05 02:30:00", "+11:00", "repeat"],
      ["2026-04-05T16:30:00Z", "2026-04-06 02:30:00", "+10:00", ""],
    ]);
  });

  it("Lord Howe's 30-minute repeat: 01:45 on 2026-04-05 runs once, at +11:00", () => {
    const fires = computeNextFireTimes(cron({ cron: "45 1 * * *", timezone: "Australia/Lord_Howe" }), d("2026-04-03T00:00:00Z"), 3);
    expect(rows(fires)).toEqual([
      ["2026-04-03T14:45:00Z", "2026-04-04 01:45:00", "+11:00", ""],
      ["2026-04-04T14:45:00Z", "2026-04-05 01:45:00", "+11:00", "repeat"],
      ["2026-04-05T15:15:00Z", "2026-04-06 01:45:00", "+10:30", ""],
    ]);
    expect(fires[1]?.dst?.note).toContain("(clocks go back 02:00→01:30)");
  });
});

describe("agreement with croner's own DST rules", () => {
  // croner 11 documents the same defaults (fixed time: shift / once; repeating: skip / both passes). Four days
  // around each transition, computed independently by both, must match instant for instant.
  const transitions: Record<string, string[]> = {
    "America/New_York": ["2026-03-08", "2026-11-01"],
    "Europe/Berlin": ["2026-03-29", "2026-10-25"],
    "Australia/Sydney": ["2026-04-05", "2026-10-04"],
    "Australia/Lord_Howe": ["2026-04-05", "2026-10-04"],
    "Pacific/Chatham": ["2026-04-05", "2026-09-27"], // 45-minute offsets, clocks change at 02:45/03:45
    "Asia/Kolkata": ["2026-03-29"],
    UTC: ["2026-03-29"],
  };
  const expressions = [
    "30 2 * * *",
    "30 1 * * *",
    "0 3 * * *",
    "15 3 * * *",
    "45 2 * * 0",
    "0 2,3 * * *",
    "*/15 * * * *",
    "0 * * * *",
    "10 */20 * * * *",
    "30 30 2 * * *",
  ];

  for (const [timezone, days] of Object.entries(transitions)) {
    it(timezone, () => {
      for (const day of days) {
        const from = new Date(Date.parse(`${day}T00:00:00Z`) - 2 * 86_400_000);
        const until = new Date(Date.parse(`${day}T00:00:00Z`) + 2 * 86_400_000);
        for (const expr of expressions) {
          // croner's stopAt is exclusive, `until` inclusive.
          const theirs = new Cron(expr, { timezone, paused: true, fixedTimeRule: "no-wildcard", stopAt: new Date(until.getTime() + 1000) })
            .nextRuns(100_000, from)
            .map((t) => t.toISOString());
          const ours = computeNextFireTimes(cron({ cron: expr, timezone }), from, 100_000, { until }).map((f) => f.at.toISOString());
          expect(ours.length, `${expr} around ${day}`).toBeGreaterThan(0);
          expect(ours, `${expr} around ${day}`).toEqual(theirs);
        }
      }
    });
  }
});

describe("unusual zones", () => {
  it("a gap at midnight (America/Santiago, 2026-09-06 00:00→01:00) shifts 00:30 to 01:00 the same day", () => {
    const fires = computeNextFireTimes(cron({ cron: "30 0 * * *", timezone: "America/Santiago" }), d("2026-09-05T12:00:00Z"), 2);
    expect(rows(fires)).toEqual([
      ["2026-09-06T04:00:00Z", "2026-09-06 01:00:00", "-03:00", "gap"],
      ["2026-09-07T03:30:00Z", "2026-09-07 00:30:00", "-03:00", ""],
    ]);
  });

  it("a skipped calendar day (Pacific/Apia, 2011-12-30) shifts that day's fire to the first instant after it", () => {
    const fires = computeNextFireTimes(cron({ cron: "0 9 * * *", timezone: "Pacific/Apia" }), d("2011-12-29T12:00:00Z"), 3);
    expect(rows(fires)).toEqual([
      ["2011-12-29T19:00:00Z", "2011-12-29 09:00:00", "-10:00", ""],
      ["2011-12-30T10:00:00Z", "2011-12-31 00:00:00", "+14:00", "gap"],
      ["2011-12-30T19:00:00Z", "2011-12-31 09:00:00", "+14:00", ""],
    ]);
    expect(fires[1]?.dst?.note).toBe(
      "09:00 does not exist on 2011-12-30 in Pacific/Apia (clocks jump 2011-12-30 00:00→2011-12-31 00:00); runs at 00:00",
    );
  });
});
