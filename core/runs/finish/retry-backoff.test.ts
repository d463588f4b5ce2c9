import { describe, expect, it } from "vitest";
import { retryCeilingMs, retryDelayMs } from "./retry-backoff";

describe("retry backoff", () => {
  const policy = { baseSeconds: 2, maxSeconds: 30 };

  it("doubles the ceiling per attempt up to the cap", () => {
    expect([1, 2, 3, 4, 5, 6, 40].map((a) => retryCeilingMs(a, policy))).toEqual([2000, 4000, 8000, 16000, 30000, 30000, 30000]);
  });

  it("draws the delay uniformly below the ceiling (full jitter)", () => {
    expect(retryDelayMs(3, policy, () => 0)).toBe(0);
    expect(retryDelayMs(3, policy, () => 0.5)).toBe(4000);
    expect(retryDelayMs(3, policy, () => 0.999999)).toBe(7999);
    const draws = Array.from({ length: 2000 }, () => retryDelayMs(2, policy));
    expect(Math.min(...draws)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...draws)).toBeLessThan(4000);
    // Spread, not a fixed interval: the draws cover most of the range.
    expect(Math.max(...draws) - Math.min(...draws)).toBeGreaterThan(3000);
  });
});
