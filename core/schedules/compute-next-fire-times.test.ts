import { afterEach, describe, expect, it, vi } from "vitest";
import { computeFireTimesBetween, computeNextFireTimes, MAX_FIRE_TIMES, type FireTime } from "./compute-next-fire-times";
import { triggerSchema, type TriggerInput } from "./trigger";

const parse = (input: TriggerInput) => triggerSchema.parse(input);
const at = (fires: FireTime[]) => fires.map((f) => f.at.toISOString());
const d = (iso: string) => new Date(iso);

describe("computeNextFireTimes: cron without DST", () => {
  it("fires a seconds-field expression every 10 s, strictly after `from` even mid-second", () => {
    const trigger = parse({ kind: "cron", cron: "*/10 * * * * *", timezone: "UTC" });
    expect(at(computeNextFireTimes(trigger, d("2026-01-01T00:00:05.500Z"), 3))).toEqual([
      "2026-01-01T00:00:10.000Z",
      "2026-01-01T00:00:20.000Z",
      "2026-01-01T00:00:30.000Z",
    ]);
    expect(at(computeNextFireTimes(trigger, d("2026-01-01T00:00:10.000Z"), 1))).toEqual(["2026-01-01T00:00:20.000Z"]);
  });

  it("runs a daily 02:30 in Asia/Kolkata (UTC+05:30) at 21:00Z the day before, with its local time", () => {
    const fires = computeNextFireTimes(parse({ kind: "cron", cron: "30 2 * * *", timezone: "Asia/Kolkata" }), d("2026-03-29T00:00:00Z"), 2);
    expect(fires).toEqual([
      { at: d("2026-03-29T21:00:00Z"), localTime: "2026-03-30 02:30:00", utcOffset: "+05:30" },
      { at: d("2026-03-30T21:00:00Z"), localTime: "2026-03-31 02:30:00", utcOffset: "+05:30" },
    ]);
  });

  it("runs weekdays at 09:00 UTC, skipping the weekend", () => {
    const trigger = parse({ kind: "cron", cron: "0 9 * * 1-5", timezone: "UTC" });
    // 2026-01-02 is a Friday.
    expect(at(computeNextFireTimes(trigger, d("2026-01-02T09:00:00Z"), 2))).toEqual([
      "2026-01-05T09:00:00.000Z",
      "2026-01-06T09:00:00.000Z",
    ]);
  });

  it("stops at `until`, inclusive", () => {
    const trigger = parse({ kind: "cron", cron: "0 * * * *", timezone: "UTC" });
    expect(at(computeNextFireTimes(trigger, d("2026-01-01T00:00:00Z"), 100, { until: d("2026-01-01T03:00:00Z") }))).toEqual([
      "2026-01-01T01:00:00.000Z",
      "2026-01-01T02:00:00.000Z",
      "2026-01-01T03:00:00.000Z",
    ]);
  });

  it("caps the count at MAX_FIRE_TIMES and returns nothing for a count of 0", () => {
    const trigger = parse({ kind: "cron", cron: "* * * * * *", timezone: "UTC" });
    const fires = computeNextFireTimes(trigger, d("2026-01-01T00:00:00Z"), 50_000);
    expect(fires).toHaveLength(MAX_FIRE_TIMES);
    expect(fires.at(-1)?.at.toISOString()).toBe("2026-01-01T02:46:40.000Z");
    expect(computeNextFireTimes(trigger, d("2026-01-01T00:00:00Z"), 0)).toEqual([]);
  });
});

describe("computeNextFireTimes: interval", () => {
  it("fires at anchor + k × every, computing k arithmetically from a `from` far from the anchor", () => {
    const trigger = parse({ kind: "interval", everySeconds: 7, anchor: "2026-01-01T00:00:00Z" });
    // 3600 s / 7 = 514.3, so the first fire after 01:00:00 is k = 515, at 3605 s.
    expect(at(computeNextFireTimes(trigger, d("2026-01-01T01:00:00Z"), 2))).toEqual([
      "2026-01-01T01:00:05.000Z",
      "2026-01-01T01:00:12.000Z",
    ]);
    const years = parse({ kind: "interval", everySeconds: 30, anchor: "2020-01-01T00:00:10Z" });
    expect(at(computeNextFireTimes(years, d("2026-05-01T12:00:40Z"), 2))).toEqual(["2026-05-01T12:01:10.000Z", "2026-05-01T12:01:40.000Z"]);
  });

  it("does not fire at `from` itself when `from` is a fire time", () => {
    const trigger = parse({ kind: "interval", everySeconds: 60, anchor: "2026-01-01T00:00:00Z" });
    expect(at(computeNextFireTimes(trigger, d("2026-01-01T00:05:00Z"), 1))).toEqual(["2026-01-01T00:06:00.000Z"]);
  });

  it("uses opts.anchor (the schedule's creation time) when the trigger has none, and the trigger's over it", () => {
    const noAnchor = parse({ kind: "interval", everySeconds: 30 });
    const created = d("2026-04-01T10:00:15Z");
    expect(at(computeNextFireTimes(noAnchor, d("2026-04-01T10:01:00Z"), 2, { anchor: created }))).toEqual([
      "2026-04-01T10:01:15.000Z",
      "2026-04-01T10:01:45.000Z",
    ]);
    const anchored = parse({ kind: "interval", everySeconds: 30, anchor: "2026-04-01T10:00:00Z" });
    expect(at(computeNextFireTimes(anchored, d("2026-04-01T10:01:00Z"), 1, { anchor: created }))).toEqual(["2026-04-01T10:01:30.000Z"]);
  });

  it("starts at the anchor when the anchor is after `from`", () => {
    const trigger = parse({ kind: "interval", everySeconds: 3600, anchor: "2026-06-01T00:00:00+02:00" });
    expect(at(computeNextFireTimes(trigger, d("2026-01-01T00:00:00Z"), 2))).toEqual([
      "2026-05-31T22:00:00.000Z",
      "2026-05-31T23:00:00.000Z",
    ]);
  });

  it("throws a clear error when no anchor is known", () => {
    expect(() => computeNextFireTimes(parse({ kind: "interval", everySeconds: 30 }), d("2026-01-01T00:00:00Z"), 1)).toThrow(
      "An interval trigger needs an anchor: pass the schedule's creation time as opts.anchor",
    );
  });
});

describe("computeNextFireTimes: once", () => {
  const trigger = parse({ kind: "once", at: "2026-12-01T10:00:00+01:00" });

  it("returns the instant while it is still ahead, in UTC", () => {
    expect(computeNextFireTimes(trigger, d("2026-11-30T00:00:00Z"), 5)).toEqual([
      { at: d("2026-12-01T09:00:00Z"), localTime: "2026-12-01 09:00:00", utcOffset: "+00:00" },
    ]);
  });

  it("returns nothing once `from` has reached it", () => {
    expect(computeNextFireTimes(trigger, d("2026-12-01T09:00:00Z"), 5)).toEqual([]);
    expect(computeNextFireTimes(trigger, d("2027-01-01T00:00:00Z"), 5)).toEqual([]);
  });
});

describe("computeFireTimesBetween", () => {
  it("returns the fires in (from, to] for a backfill window", () => {
    const trigger = parse({ kind: "interval", everySeconds: 3600, anchor: "2026-01-01T00:00:00Z" });
    expect(at(computeFireTimesBetween(trigger, d("2026-01-01T00:00:00Z"), d("2026-01-01T03:00:00Z")))).toEqual([
      "2026-01-01T01:00:00.000Z",
      "2026-01-01T02:00:00.000Z",
      "2026-01-01T03:00:00.000Z",
    ]);
  });

  it("honours a limit, and returns nothing for an empty or reversed window", () => {
    const trigger = parse({ kind: "cron", cron: "*/15 * * * *", timezone: "Europe/Berlin" });
    expect(at(computeFireTimesBetween(trigger, d("2026-01-01T00:00:00Z"), d("2026-01-02T00:00:00Z"), { limit: 2 }))).toEqual([
      "2026-01-01T00:15:00.000Z",
      "2026-01-01T00:30:00.000Z",
    ]);
    expect(computeFireTimesBetween(trigger, d("2026-01-01T00:00:00Z"), d("2026-01-01T00:00:00Z"))).toEqual([]);
    expect(computeFireTimesBetween(trigger, d("2026-01-02T00:00:00Z"), d("2026-01-01T00:00:00Z"))).toEqual([]);
  });
});

describe("purity", () => {
  afterEach(() => vi.useRealTimers());

  it("gives the same answer whatever this process's clock says", () => {
    const trigger = parse({ kind: "cron", cron: "30 2 * * *", timezone: "America/New_York" });
    const expected = ["2026-03-07T07:30:00.000Z", "2026-03-08T07:00:00.000Z"];
    vi.useFakeTimers({ now: d("2099-07-01T12:00:00Z") });
    expect(at(computeNextFireTimes(trigger, d("2026-03-07T00:00:00Z"), 2))).toEqual(expected);
    vi.setSystemTime(d("1999-01-01T00:00:00Z"));
    expect(at(computeNextFireTimes(trigger, d("2026-03-07T00:00:00Z"), 2))).toEqual(expected);
  });

  it("rejects an invalid Date instead of returning garbage", () => {
    const trigger = parse({ kind: "cron", cron: "0 * * * *", timezone: "UTC" });
    expect(() => computeNextFireTimes(trigger, d("not a date"), 1)).toThrow("from is an invalid Date");
  });
});
