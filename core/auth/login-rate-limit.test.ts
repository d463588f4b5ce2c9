import { describe, expect, it } from "vitest";
import { loginDelaySeconds, loginWaitSeconds } from "./login-rate-limit";

const s = { freeFailures: 5, delayBaseSeconds: 2, delayMaxSeconds: 900, addressCeiling: 100 };

describe("login throttle delays", () => {
  it("lets a pair's first failures through, then doubles the delay up to the cap", () => {
    const delay = (pairFailures: number, addressFailures = pairFailures) =>
      loginDelaySeconds({ pairFailures, addressFailures, secondsSinceLastPairFailure: 0 }, s);
    expect([0, 1, 4].map((n) => delay(n))).toEqual([0, 0, 0]);
    expect([5, 6, 7, 10].map((n) => delay(n))).toEqual([2, 4, 8, 64]);
    expect(delay(14)).toBe(900);
    expect(delay(1000)).toBe(900);
  });

  it("past the address ceiling, a pair that has failed loses its free failures; a clean pair is never delayed", () => {
    expect(loginDelaySeconds({ pairFailures: 1, addressFailures: 100, secondsSinceLastPairFailure: 0 }, s)).toBe(4);
    expect(loginDelaySeconds({ pairFailures: 0, addressFailures: 10_000, secondsSinceLastPairFailure: null }, s)).toBe(0);
  });

  it("counts the wait from the pair's last failure", () => {
    expect(loginWaitSeconds({ pairFailures: 7, addressFailures: 7, secondsSinceLastPairFailure: 3.2 }, s)).toBe(5);
    expect(loginWaitSeconds({ pairFailures: 7, addressFailures: 7, secondsSinceLastPairFailure: 9 }, s)).toBe(0);
  });
});
