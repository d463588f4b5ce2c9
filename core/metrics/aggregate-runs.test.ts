import { describe, expect, it } from "vitest";
import { negatedBoundsMs } from "./aggregate-runs";

describe("histogram buckets counted with width_bucket over negated bounds", () => {
  it("gives k = the number of bounds >= x, so x lands in exactly the 'le' buckets (x <= bound)", () => {
    const bounds = [0.005, 0.1, 1];
    const neg = negatedBoundsMs(bounds);
    expect(neg).toEqual([-1000, -100, -5]);
    // width_bucket(-x, neg): how many thresholds are <= -x.
    const k = (xMs: number) => neg.filter((t) => t <= -xMs).length;
    const le = (xMs: number) => bounds.map((_b, j) => j >= bounds.length - k(xMs));
    expect(le(5)).toEqual([true, true, true]); // exactly on a bound: counted in it (le is inclusive)
    expect(le(6)).toEqual([false, true, true]);
    expect(le(100)).toEqual([false, true, true]);
    expect(le(101)).toEqual([false, false, true]);
    expect(le(5000)).toEqual([false, false, false]); // only +Inf
  });
});
