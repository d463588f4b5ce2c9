import { describe, expect, it } from "vitest";
import { groupBursts } from "./group-bunching";

const minutes = (n: number) => new Int32Array(n);

describe("groupBursts", () => {
  it("800 runs due at once against a limit of 10, 30 s each: the last starts 79 × 30 s late", () => {
    const due = minutes(60);
    const work = new Float64Array(60);
    due[0] = 800;
    work[0] = 800 * 30_000;
    const [burst, ...rest] = groupBursts(due, work, { limit: 10, startRateLimit: null });
    expect(burst).toEqual({ minute: 0, due: 800, lastStartLatenessMs: 79 * 30_000, meanDurationMs: 30_000 });
    // Later minutes are quiet: the backlog is over by then only if nothing else is due.
    expect(rest).toEqual([]);
  });

  it("a backlog carries over into the next burst; runs within the limit do not bunch", () => {
    const due = minutes(3);
    const work = new Float64Array(3);
    due[0] = 4;
    work[0] = 4 * 90_000; // 2 slots: starts at 0, 0, 90 s, 90 s → the slots are busy until 180 s
    due[2] = 2;
    work[2] = 2 * 1000; // due at 120 s: both slots free only at 180 s
    const bursts = groupBursts(due, work, { limit: 2, startRateLimit: null });
    expect(bursts).toEqual([
      { minute: 0, due: 4, lastStartLatenessMs: 90_000, meanDurationMs: 90_000 },
      { minute: 2, due: 2, lastStartLatenessMs: 60_000, meanDurationMs: 1000 },
    ]);
    const calm = groupBursts(Int32Array.from([2, 0, 2]), Float64Array.from([2000, 0, 2000]), { limit: 2, startRateLimit: null });
    expect(calm).toEqual([]);
  });

  it("a start-rate limit delays a burst on its own: 25 starts at 10 per minute → the last 2 minutes late", () => {
    const bursts = groupBursts(Int32Array.from([25]), Float64Array.from([0]), {
      limit: 100,
      startRateLimit: { maxStarts: 10, perSeconds: 60 },
    });
    expect(bursts[0]?.lastStartLatenessMs).toBe(120_000);
  });
});

describe("groupBursts against one run at a time", () => {
  it("gives what starting each run on the earliest free slot gives, backlog or not", () => {
    let seed = 3;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let trial = 0; trial < 30; trial++) {
      const limit = 1 + Math.floor(rand() * 12);
      const due = new Int32Array(120);
      const work = new Float64Array(120);
      for (let m = 0; m < 120; m++) {
        if (rand() < 0.5) continue;
        due[m] = Math.floor(rand() * 40);
        work[m] = due[m]! * Math.floor(rand() * 90_000);
      }
      // The slow way: a sorted array of free times, one run at a time.
      const free = new Array<number>(limit).fill(0);
      const want: number[] = [];
      for (let m = 0; m < 120; m++) {
        const n = due[m]!;
        if (n === 0) continue;
        const t = m * 60_000;
        const d = work[m]! / n;
        let last = t;
        for (let i = 0; i < n; i++) {
          free.sort((a, b) => a - b);
          const start = Math.max(free[0]!, t);
          free[0] = start + d;
          last = start;
        }
        if (last - t > 1000 || n > limit) want.push(Math.round(last - t));
      }
      expect(groupBursts(due, work, { limit, startRateLimit: null }).map((b) => b.lastStartLatenessMs)).toEqual(want);
    }
  });
});
