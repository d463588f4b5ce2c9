import { describe, expect, it } from "vitest";
import { buildTimelinePaths } from "./build-timeline-paths";
import {
  countByOutcome,
  finishLane,
  hitTest,
  nearestRun,
  stepRun,
  timeTicks,
  type TimelineModel,
  type TimelineRun,
} from "./timeline-model";
import { toTimelineModel, type TimelineApi } from "./timeline-queries";

const MIN = 60_000;

function run(plannedMin: number, state: string, startLateMs: number | null, durMs = 20_000): TimelineRun {
  const plannedAt = plannedMin * MIN;
  const startedAt = startLateMs === null ? null : plannedAt + startLateMs;
  const finishedAt = startedAt === null || state === "running" ? null : startedAt + durMs;
  return {
    scheduleId: "s",
    runId: `r${plannedMin}`,
    kind: "scheduled",
    state,
    plannedAt,
    dueAt: plannedAt,
    startedAt,
    finishedAt,
    latenessMs: startLateMs,
    attempts: startedAt === null ? [] : [{ number: 1, startedAt, finishedAt, state }],
  };
}

const everything = new Set([
  "succeeded",
  "failed",
  "timed_out",
  "cancelled",
  "skipped_overlap",
  "missed",
  "hollow",
  "zombie",
  "running",
  "planned",
  "paused",
  "excluded",
]);

describe("timeline model", () => {
  const now = 30 * MIN;
  const lane = finishLane(
    "s1",
    "nightly",
    [run(20, "succeeded", 100), run(10, "failed", 5 * MIN), run(25, "running", 200), run(29, "missed", null)],
    now,
  );

  it("finds the bar under the pointer, and the planned marker when there is no bar", () => {
    expect(hitTest(lane, 10 * MIN + 5 * MIN + 1000, 1000, now, () => true)?.runId).toBe("r10"); // inside the late bar
    expect(hitTest(lane, 29 * MIN + 500, 1000, now, () => true, "marker")?.runId).toBe("r29"); // missed: marker only
    expect(hitTest(lane, 29 * MIN + 500, 1000, now, () => true, "bar")?.runId).toBe("r25"); // the running bar below it
    expect(hitTest(lane, 28 * MIN, 1000, now, () => true)?.runId).toBe("r25"); // running: bar up to now
    expect(hitTest(lane, 5 * MIN, 1000, now, () => true)).toBeNull();
  });

  it("skips runs the outcome filter hides", () => {
    expect(hitTest(lane, 20 * MIN + 1000, 1000, now, (r) => r.state !== "succeeded")).toBeNull();
  });

  it("puts axis ticks on round wall-clock times", () => {
    const ticks = timeTicks(Date.UTC(2026, 0, 1, 10, 7), Date.UTC(2026, 0, 1, 17, 7), 10, 0);
    expect(ticks[0]).toBe(Date.UTC(2026, 0, 1, 11, 0));
    expect(ticks.every((t) => t % 3_600_000 === 0)).toBe(true);
  });
});

const RUNS_MODE = { mode: "runs", bucketMs: 0, laneOffset: 0, laneTotal: 1 } as const;

describe("timeline paths", () => {
  const plot = { x: 0, y: 0, width: 1000, height: 100 };

  it("draws a connector from a late start's marker to its bar, and none for an on-time start", () => {
    const model: TimelineModel = {
      from: 0,
      to: 60 * MIN,
      now: 60 * MIN,
      ...RUNS_MODE,
      lanes: [finishLane("s", "a", [run(10, "succeeded", 5 * MIN), run(30, "succeeded", 50)], 60 * MIN)],
    };
    const paths = buildTimelinePaths(model, plot, everything);
    const late = paths.find((p) => p.key === "late");
    expect(late?.d.match(/M/g)).toHaveLength(1);
    expect(paths.find((p) => p.key === "bar:succeeded")?.d.match(/M/g)).toHaveLength(2);
  });

  it("merges thousands of adjacent marks into a handful of paths", () => {
    const runs = Array.from({ length: 420 }, (_, i) => run(i, "succeeded", 100, 59_000));
    const lanes = Array.from({ length: 50 }, (_, i) =>
      finishLane(
        `s${i}`,
        `s${i}`,
        runs.map((r) => ({ ...r })),
        420 * MIN,
      ),
    );
    const paths = buildTimelinePaths({ from: 0, to: 420 * MIN, now: 420 * MIN, lanes, ...RUNS_MODE }, plot, everything);
    expect(paths.length).toBeLessThanOrEqual(4);
    // Bars a minute apart on a 1000 px axis overlap at this zoom: one merged rectangle per lane.
    expect(paths.find((p) => p.key === "bar:succeeded")?.d.match(/M/g)).toHaveLength(50);
  });

  it("draws hollow runs outlined and missed ones as coloured markers, and honours the outcome filter", () => {
    const model: TimelineModel = {
      from: 0,
      to: 60 * MIN,
      now: 60 * MIN,
      ...RUNS_MODE,
      lanes: [finishLane("s", "a", [run(10, "hollow", 10), run(20, "missed", null)], 60 * MIN)],
    };
    const keys = buildTimelinePaths(model, plot, everything).map((p) => p.key);
    expect(keys).toEqual(expect.arrayContaining(["outline:hollow", "marker:missed"]));
    const filtered = buildTimelinePaths(model, plot, new Set(["hollow"])).map((p) => p.key);
    expect(filtered).not.toContain("marker:missed");
  });
});

describe("toTimelineModel", () => {
  it("maps the compact API tuples into lanes, with attempts of retried runs", () => {
    const api: TimelineApi = {
      from: "2026-01-01T00:00:00.000Z",
      to: "2026-01-01T01:00:00.000Z",
      now: "2026-01-01T00:30:00.000Z",
      historyFrom: "2026-01-01T00:00:00.000Z",
      t0: Date.parse("2026-01-01T00:00:00.000Z"),
      states: ["planned", "queued", "running", "retrying", "succeeded"],
      kinds: ["scheduled", "manual", "backfill"],
      schedules: [
        { id: "b", name: "beta", paused: true },
        { id: "a", name: "alpha", paused: false },
      ],
      startJitterMs: [0, 0],
      runs: [
        [1, 60_000, 4, 0, 0, 1000, 10_000, "run-1"],
        [0, 120_000, 4, 1, 0, 1000, 80_000, "run-2"],
        [1, 40 * MIN, 0, 0, 0, null, null, "run-3"],
      ],
      attempts: [
        [1, 1, 121_000, 150_000, "failed"],
        [1, 2, 160_000, 200_000, "succeeded"],
      ],
      mode: "runs",
      bucketMs: 0,
      buckets: [],
      lanes: { total: 2, offset: 0 },
    };
    const m = toTimelineModel(api);
    expect(m.lanes.map((l) => [l.name, l.paused, l.runs.map((r) => r.runId)])).toEqual([
      ["beta", true, ["run-2"]],
      ["alpha", false, ["run-1", "run-3"]],
    ]);
    const retried = m.lanes[0]!.runs[0]!;
    expect(retried.kind).toBe("manual");
    expect(retried.attempts.map((a) => a.state)).toEqual(["failed", "succeeded"]);
    expect(m.lanes[1]!.runs[0]!.attempts).toEqual([
      { number: 1, startedAt: api.t0 + 61_000, finishedAt: api.t0 + 70_000, state: "succeeded" },
    ]);
    expect(m.lanes[1]!.runs[1]!.attempts).toEqual([]);
  });
});

describe("keyboard steps", () => {
  const mk = (plannedAt: number, state = "succeeded"): TimelineRun => ({
    runId: String(plannedAt),
    scheduleId: "s",
    kind: "scheduled",
    state,
    plannedAt,
    dueAt: plannedAt,
    startedAt: null,
    finishedAt: null,
    latenessMs: null,
    attempts: [],
  });
  const lane = finishLane("s", "s", [mk(0), mk(60), mk(120, "missed"), mk(180)], 1000);
  const notMissed = (r: TimelineRun) => r.state !== "missed";

  it("steps to the next and previous accepted run, skipping filtered ones, and stops at the ends", () => {
    expect(stepRun(lane, 1, 1, notMissed)).toBe(3);
    expect(stepRun(lane, 3, -1, notMissed)).toBe(1);
    expect(stepRun(lane, 3, 1, notMissed)).toBeNull();
    expect(stepRun(lane, 0, -1, notMissed)).toBeNull();
  });

  it("finds the accepted run planned nearest a time, on either side", () => {
    expect(nearestRun(lane, 70, notMissed)).toBe(1);
    expect(nearestRun(lane, 125, notMissed)).toBe(3); // 120 is filtered: 180 is 55 away, 60 is 65 away
    expect(nearestRun(lane, 5000, notMissed)).toBe(3);
    expect(nearestRun(lane, -50, notMissed)).toBe(0);
    expect(nearestRun(finishLane("e", "e", [], 0), 10, notMissed)).toBeNull();
  });
});

describe("the legend's counts", () => {
  it("count what the lanes draw: runs enqueued ahead (queued, not started) are planned markers, not running", () => {
    const lane = finishLane(
      "s",
      "every-10s",
      [run(0, "succeeded", 100), run(1, "running", 200), run(2, "queued", null), run(3, "queued", null), run(4, "planned", null)],
      1.5 * MIN,
    );
    const model = { from: 0, to: 5 * MIN, now: 1.5 * MIN, lanes: [lane], mode: "runs", bucketMs: 0, laneOffset: 0, laneTotal: 1 };
    expect(countByOutcome(model as TimelineModel)).toEqual({ succeeded: 1, running: 1, planned: 3 });
  });
});
