import { describe, expect, it } from "vitest";
import { formatDuration } from "./format-duration";

describe("formatDuration", () => {
  it("reads naturally from milliseconds to hours", () => {
    expect(formatDuration(850)).toBe("850 ms");
    expect(formatDuration(3240)).toBe("3.2 s");
    expect(formatDuration(42_000)).toBe("42 s");
    expect(formatDuration(250_000)).toBe("4 min 10 s");
    expect(formatDuration(7_500_000)).toBe("2 h 5 min");
    expect(formatDuration(-1500)).toBe("-1.5 s");
  });
});
