import { describe, expect, it } from "vitest";
import { formatOffset, formatWall, formatWallClock, offsetAt, resolveWall } from "./zone-clock";

const wall = (text: string) => Date.parse(`${text}Z`);
const iso = (ms: number) => new Date(ms).toISOString();
const HOUR = 3_600_000;

describe("resolveWall", () => {
  it("finds the single instant of an ordinary wall time", () => {
    const r = resolveWall("Asia/Kolkata", wall("2026-03-30T02:30:00"));
    expect(r.kind === "single" && iso(r.at)).toBe("2026-03-29T21:00:00.000Z");
  });

  it("reports a spring-forward gap with the instant the clocks jumped and both offsets", () => {
    const r = resolveWall("America/New_York", wall("2026-03-08T02:30:00"));
    expect(r).toEqual({
      kind: "gap",
      transition: { at: Date.parse("2026-03-08T07:00:00Z"), offsetBefore: -5 * HOUR, offsetAfter: -4 * HOUR },
    });
  });

  it("reports both instants of a fall-back repeat, earlier first", () => {
    const r = resolveWall("America/New_York", wall("2026-11-01T01:30:00"));
    expect(r.kind).toBe("repeat");
    if (r.kind !== "repeat") return;
    expect([iso(r.first), iso(r.second), iso(r.transition.at)]).toEqual([
      "2026-11-01T05:30:00.000Z",
      "2026-11-01T06:30:00.000Z",
      "2026-11-01T06:00:00.000Z",
    ]);
  });

  it("treats the first minute after a gap and the last before it as ordinary", () => {
    const after = resolveWall("Europe/Berlin", wall("2026-03-29T03:00:00"));
    const before = resolveWall("Europe/Berlin", wall("2026-03-29T01:59:59"));
    expect(after.kind === "single" && iso(after.at)).toBe("2026-03-29T01:00:00.000Z");
    expect(before.kind === "single" && iso(before.at)).toBe("2026-03-29T00:59:59.000Z");
  });

  it("handles Lord Howe's 30-minute shift", () => {
    const gap = resolveWall("Australia/Lord_Howe", wall("2026-10-04T02:15:00"));
    expect(gap.kind === "gap" && iso(gap.transition.at)).toBe("2026-10-03T15:30:00.000Z");
    const repeat = resolveWall("Australia/Lord_Howe", wall("2026-04-05T01:45:00"));
    expect(repeat.kind === "repeat" && [iso(repeat.first), iso(repeat.second)]).toEqual([
      "2026-04-04T14:45:00.000Z",
      "2026-04-04T15:15:00.000Z",
    ]);
  });
});

describe("offsets and formatting", () => {
  it("reads offsets on either side of a transition", () => {
    expect(offsetAt("Europe/Berlin", Date.parse("2026-03-29T00:59:59Z"))).toBe(HOUR);
    expect(offsetAt("Europe/Berlin", Date.parse("2026-03-29T01:00:00Z"))).toBe(2 * HOUR);
  });

  it("formats offsets, wall times and clock times", () => {
    expect([formatOffset(5.5 * HOUR), formatOffset(-4 * HOUR), formatOffset(0), formatOffset(12.75 * HOUR)]).toEqual([
      "+05:30",
      "-04:00",
      "+00:00",
      "+12:45",
    ]);
    expect(formatWall(wall("2026-03-29T02:30:00"))).toBe("2026-03-29 02:30:00");
    expect([formatWallClock(wall("2026-03-29T02:30:00")), formatWallClock(wall("2026-03-29T02:30:15"))]).toEqual(["02:30", "02:30:15"]);
  });
});
