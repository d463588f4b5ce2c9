import { describe, expect, it } from "vitest";
import { describeTrigger } from "./describe-trigger";
import { triggerSchema, type TriggerInput } from "./trigger";

const describeInput = (input: TriggerInput) => describeTrigger(triggerSchema.parse(input));
const cron = (expr: string, timezone = "Europe/Berlin") => describeInput({ kind: "cron", cron: expr, timezone });

describe("describeTrigger", () => {
  it.each([
    [10, "every 10 seconds"],
    [30, "every 30 seconds"],
    [60, "every minute"],
    [90, "every 90 seconds"],
    [900, "every 15 minutes"],
    [5400, "every 90 minutes"],
    [3600, "every hour"],
    [7200, "every 2 hours"],
    [86_400, "every day"],
  ])("interval of %i s → %s", (everySeconds, text) => {
    expect(describeInput({ kind: "interval", everySeconds })).toBe(text);
  });

  it("mentions an interval's anchor in UTC", () => {
    expect(describeInput({ kind: "interval", everySeconds: 7200, anchor: "2026-05-01T11:00:00+02:00" })).toBe(
      "every 2 hours, counted from 2026-05-01 09:00 UTC",
    );
  });

  it("gives a one-off in UTC, with seconds only when they matter", () => {
    expect(describeInput({ kind: "once", at: "2026-12-01T09:00:00Z" })).toBe("once at 2026-12-01 09:00 UTC");
    expect(describeInput({ kind: "once", at: "2026-12-01T10:00:30+01:00" })).toBe("once at 2026-12-01 09:00:30 UTC");
  });

  it.each([
    ["*/10 * * * * *", "every 10 seconds (Europe/Berlin)"],
    ["* * * * * *", "every second (Europe/Berlin)"],
    ["* * * * *", "every minute (Europe/Berlin)"],
    ["*/15 * * * *", "every 15 minutes (Europe/Berlin)"],
    ["0 */15 * * * *", "every 15 minutes (Europe/Berlin)"],
    ["0 * * * *", "every hour (Europe/Berlin)"],
    ["30 * * * *", "every hour at :30 (Europe/Berlin)"],
    ["0 */6 * * *", "every 6 hours (Europe/Berlin)"],
    ["30 2 * * *", "at 02:30 every day (Europe/Berlin)"],
    ["0 9,17 * * *", "at 09:00 and 17:00 every day (Europe/Berlin)"],
    ["30 0 9 * * *", "at 09:00:30 every day (Europe/Berlin)"],
    ["0 9 * * 1-5", "at 09:00 on weekdays (Europe/Berlin)"],
    ["0 9 * * MON-FRI", "at 09:00 on weekdays (Europe/Berlin)"],
    ["0 10 * * 0,6", "at 10:00 on weekends (Europe/Berlin)"],
    ["0 8 * * 1", "at 08:00 on Mondays (Europe/Berlin)"],
    ["0 8 * * 1,3,5", "at 08:00 on Mondays, Wednesdays and Fridays (Europe/Berlin)"],
    ["0 8 * * 2-4", "at 08:00 from Tuesday to Thursday (Europe/Berlin)"],
    ["0 0 1 * *", "at 00:00 on the 1st of every month (Europe/Berlin)"],
    ["0 6 L * *", "at 06:00 on the last day of every month (Europe/Berlin)"],
    ["0 12 25 12 *", "at 12:00 on 25 December every year (Europe/Berlin)"],
    ["0 7 * MAR *", "at 07:00 every day in March (Europe/Berlin)"],
    ["*/15 9-17 * * 1-5", "every 15 minutes from 09:00 to 17:45 on weekdays (Europe/Berlin)"],
    ["0 9-17 * * *", "every hour from 09:00 to 17:00 (Europe/Berlin)"],
  ])("cron %j → %s", (expr, text) => {
    expect(cron(expr)).toBe(text);
  });

  it("falls back to the expression itself for shapes it cannot say well", () => {
    expect(cron("5,35 */2 1-7 * MON", "America/New_York")).toBe("cron `5,35 */2 1-7 * MON` (America/New_York)");
    expect(cron("0 0 * * FRI#2", "UTC")).toBe("cron `0 0 * * FRI#2` (UTC)");
  });

  it("says when a fixed-time schedule departs from the DST defaults", () => {
    const trigger = { kind: "cron", cron: "30 2 * * *", timezone: "America/New_York" } as const;
    expect(describeInput({ ...trigger, dst: { gap: "skip", repeat: "twice" } })).toBe(
      "at 02:30 every day (America/New_York); skipped when DST jumps over it, twice when DST repeats it",
    );
    expect(describeInput({ ...trigger, cron: "*/15 * * * *", dst: { gap: "skip" } })).toBe("every 15 minutes (America/New_York)");
  });
});
