import { describe, expect, it } from "vitest";
import { nextRateSlot, type StartRate } from "./start-rate-limit";

const at = (ms: number) => new Date(ms);
const rate = (maxStarts: number, perSeconds: number, starts: number[]): StartRate => ({
  maxStarts,
  perSeconds,
  recentStarts: starts.map(at),
});

describe("nextRateSlot (sliding window over recorded starts)", () => {
  it("lets a start through while the window (now − P, now] holds fewer than maxStarts starts", () => {
    expect(nextRateSlot(rate(3, 1, [10_000, 10_500]), at(10_900), 0, 0)).toBeNull();
    // A start exactly P ago has left the window.
    expect(nextRateSlot(rate(2, 1, [9_900, 10_500]), at(10_900), 0, 0)).toBeNull();
  });

  it("holds a run when the window is full, until the oldest start in it leaves (+1 ms)", () => {
    expect(nextRateSlot(rate(2, 1, [10_000, 10_500]), at(10_900), 0, 0)).toEqual(at(11_001));
  });

  it("counts starts decided earlier in the same batch", () => {
    expect(nextRateSlot(rate(3, 1, [10_000]), at(10_900), 1, 0)).toBeNull();
    expect(nextRateSlot(rate(3, 1, [10_000]), at(10_900), 2, 0)).toEqual(at(11_001));
  });

  it("places a run behind those waiting ahead of it: each takes the next slot as the window slides", () => {
    const r = rate(2, 1, [10_000, 10_500]);
    expect(nextRateSlot(r, at(10_900), 0, 1)).toEqual(at(11_501)); // behind one: the second recorded start's slot
    // Behind two: a slot freed by a start not yet made, assumed a little (≤ 50 ms) late.
    expect(nextRateSlot(r, at(10_900), 0, 2)).toEqual(at(12_051));
  });

  it("only waiters whose turn has come hold back a run that finds room", () => {
    const r = rate(3, 1, [10_000]);
    expect(nextRateSlot(r, at(10_900), 0, 5, 1)).toBeNull(); // 1 in window + 1 due ahead < 3
    expect(nextRateSlot(r, at(10_900), 0, 5, 2)).not.toBeNull();
  });
});
