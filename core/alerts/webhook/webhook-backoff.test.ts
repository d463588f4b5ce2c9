import { describe, expect, it } from "vitest";
import { webhookBackoffCeilingMs, webhookRetryDelayMs } from "./webhook-backoff";

describe("webhook backoff", () => {
  const p = { baseMs: 1000, maxMs: 10_000 };

  it("doubles its ceiling per failed attempt up to the cap", () => {
    expect([1, 2, 3, 4, 5, 6, 40].map((n) => webhookBackoffCeilingMs(n, p))).toEqual([1000, 2000, 4000, 8000, 10_000, 10_000, 10_000]);
  });

  it("draws the delay uniformly below the ceiling (full jitter), never above it", () => {
    expect(webhookRetryDelayMs(3, p, () => 0)).toBe(0);
    expect(webhookRetryDelayMs(3, p, () => 0.5)).toBe(2000);
    expect(webhookRetryDelayMs(3, p, () => 0.999999)).toBe(3999);
    const draws = Array.from({ length: 200 }, () => webhookRetryDelayMs(4, p));
    expect(Math.max(...draws)).toBeLessThan(8000);
    expect(new Set(draws).size).toBeGreaterThan(100);
  });
});
