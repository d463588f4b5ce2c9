import { afterEach, describe, expect, it } from "vitest";
import {
  formatClock,
  formatDayClock,
  formatHourMinute,
  formatInZone,
  formatPrecise,
  getTimeDisplay,
  setTimeDisplay,
  subscribeTimeDisplay,
  viewerZone,
} from "./time-format";

// 16:30:05.123 UTC, when Kolkata reads 22:00:05.
const at = "2026-12-01T16:30:05.123Z";

describe("the user's choice of local time or UTC", () => {
  afterEach(() => setTimeDisplay("local"));

  it("shows times without a named zone in UTC once the user chose UTC, everywhere this module formats them", () => {
    setTimeDisplay("utc");
    expect(viewerZone()).toBe("UTC");
    expect(formatInZone(at)).toBe("2026-12-01 16:30:05 UTC");
    expect(formatInZone(at, undefined, { ms: true })).toBe("2026-12-01 16:30:05.123 UTC");
    expect(formatClock(at)).toBe("16:30:05");
    expect(formatPrecise(at)).toBe("16:30:05.123");
    expect(formatHourMinute(Date.parse(at))).toBe("16:30");
    expect(formatDayClock(Date.parse(at))).toBe("01 Dec, 16:30");
  });

  it("keeps a zone a caller names (a schedule's own zone) whatever the choice", () => {
    setTimeDisplay("utc");
    expect(formatInZone(at, "Asia/Kolkata")).toBe("2026-12-01 22:00:05 GMT+5:30");
    expect(formatClock(at, "Asia/Kolkata")).toBe("22:00:05");
  });

  it("goes back to the browser's zone for local, and tells subscribers each time it changes", () => {
    const seen: string[] = [];
    const stop = subscribeTimeDisplay(() => seen.push(getTimeDisplay()));
    setTimeDisplay("utc");
    setTimeDisplay("utc");
    setTimeDisplay("local");
    stop();
    expect(seen).toEqual(["utc", "local"]);
    expect(viewerZone()).toBe(Intl.DateTimeFormat().resolvedOptions().timeZone);
  });
});
