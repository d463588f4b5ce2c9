import { describe, expect, it } from "vitest";
import { decideMisfires, decideResume, type PendingRun } from "./mark-missed-decision";

const t0 = Date.UTC(2026, 11, 1, 9, 0, 0);
function run(i: number, over: Partial<PendingRun> = {}): PendingRun {
  return {
    id: `r${i}`,
    plannedAt: new Date(t0 + i * 60_000),
    kind: "scheduled",
    waitReason: null,
    overdue: true,
    rescuedBefore: false,
    ...over,
  };
}
const gap = [run(1), run(2), run(3), run(4), run(5)];

describe("misfire policy after downtime", () => {
  it("skip: every overdue fire is missed, nothing runs", () => {
    const d = decideMisfires(gap, { misfirePolicy: "skip", catchUpLimit: 10, paused: false }, true);
    expect(d.missed).toEqual(["r1", "r2", "r3", "r4", "r5"]);
    expect(d.rescue).toEqual([]);
  });

  it("run_once: the newest overdue fire runs, the rest are missed", () => {
    const d = decideMisfires(gap, { misfirePolicy: "run_once", catchUpLimit: 10, paused: false }, true);
    expect(d.rescue).toEqual(["r5"]);
    expect(d.missed.sort()).toEqual(["r1", "r2", "r3", "r4"]);
  });

  it("run_once: a fire of the stretch still within its deadline is the one run", () => {
    const d = decideMisfires([...gap, run(6, { overdue: false })], { misfirePolicy: "run_once", catchUpLimit: 10, paused: false }, true);
    expect(d.rescue).toEqual([]);
    expect(d.missed).toHaveLength(5);
  });

  it("catch_up: up to the limit of the newest run, the older are missed", () => {
    const d = decideMisfires(gap, { misfirePolicy: "catch_up", catchUpLimit: 2, paused: false }, true);
    expect(d.rescue.sort()).toEqual(["r4", "r5"]);
    expect(d.missed.sort()).toEqual(["r1", "r2", "r3"]);
  });

  it("never rescues twice, nor waiting, manual or backfill runs", () => {
    const pending = [
      run(1, { rescuedBefore: true }),
      run(2, { waitReason: "overlap" }),
      run(3, { kind: "manual" }),
      run(4, { kind: "backfill" }),
    ];
    const d = decideMisfires(pending, { misfirePolicy: "catch_up", catchUpLimit: 10, paused: false }, true);
    expect(d.rescue).toEqual([]);
    expect(d.missed.sort()).toEqual(["r1", "r2", "r3", "r4"]);
  });

  it("while the gap is still being written, holds the newest candidates instead of rescuing them", () => {
    const d = decideMisfires(gap, { misfirePolicy: "run_once", catchUpLimit: 10, paused: false }, false);
    expect(d.rescue).toEqual([]);
    expect(d.missed.sort()).toEqual(["r1", "r2", "r3", "r4"]);
  });

  it("leaves runs within their deadline alone", () => {
    const d = decideMisfires([run(1, { overdue: false })], { misfirePolicy: "skip", catchUpLimit: 10, paused: false }, true);
    expect(d).toEqual({ missed: [], rescue: [], paused: [] });
  });
});

describe("misfire policy in a pause", () => {
  it("records passed fires as paused, holding the ones a resume will run", () => {
    const once = decideMisfires(gap, { misfirePolicy: "run_once", catchUpLimit: 10, paused: true }, true);
    expect(once.paused.sort()).toEqual(["r1", "r2", "r3", "r4"]);
    expect(once.missed).toEqual([]);
    expect(decideMisfires(gap, { misfirePolicy: "skip", catchUpLimit: 10, paused: true }, true).paused).toHaveLength(5);
    expect(decideMisfires(gap, { misfirePolicy: "catch_up", catchUpLimit: 3, paused: true }, true).paused.sort()).toEqual(["r1", "r2"]);
  });

  it("does not hold manual runs: past their deadline they are missed", () => {
    const d = decideMisfires([run(1, { kind: "manual" })], { misfirePolicy: "run_once", catchUpLimit: 10, paused: true }, true);
    expect(d.missed).toEqual(["r1"]);
  });

  it("on resume runs the newest per policy and records the rest paused", () => {
    expect(decideResume(gap, { misfirePolicy: "skip", catchUpLimit: 5 })).toEqual({ rescue: [], paused: ["r5", "r4", "r3", "r2", "r1"] });
    expect(decideResume(gap, { misfirePolicy: "run_once", catchUpLimit: 5 }).rescue).toEqual(["r5"]);
    expect(decideResume(gap, { misfirePolicy: "catch_up", catchUpLimit: 2 })).toEqual({ rescue: ["r5", "r4"], paused: ["r3", "r2", "r1"] });
  });
});
