import { describe, expect, it } from "vitest";
import { buildTimelinePaths } from "./build-timeline-paths";
import { finishLane, type TimelineModel, type TimelineRun } from "./timeline-model";

function startedRun(scheduleId: string, plannedAt: number, latenessMs: number): TimelineRun {
  const startedAt = plannedAt + latenessMs;
  return {
    scheduleId,
    runId: null,
    kind: "scheduled",
    state: "succeeded",
    plannedAt,
    dueAt: plannedAt,
    startedAt,
    finishedAt: startedAt + 2000,
    latenessMs,
    attempts: [{ number: 1, startedAt, finishedAt: startedAt + 2000, state: "succeeded" }],
  };
}

const visible = new Set(["succeeded"]);
const plot = { x: 0, y: 0, width: 1000, height: 100 };

describe("the timeline's late connector follows the one rule for late (core/runs/lateness.ts)", () => {
  // 10 s across 1000 px: a 1.5 s offset is 150 px, well visible if it were drawn.
  const lateConnector = (jitterMs: number, latenessMs: number) => {
    const model: TimelineModel = {
      from: 0,
      to: 10_000,
      now: 10_000,
      mode: "runs",
      bucketMs: 0,
      laneOffset: 0,
      laneTotal: 1,
      lanes: [finishLane("s", "s", [startedRun("s", 1000, latenessMs)], 10_000, false, jitterMs)],
    };
    return buildTimelinePaths(model, plot, visible).some((p) => p.key === "late");
  };

  it("draws none for a start 1.5 s after planned on a schedule with 1 s of start jitter (on time, as its run page says)", () => {
    expect(lateConnector(1000, 1500)).toBe(false);
  });

  it("draws one beyond jitter + tolerance, and for the same 1.5 s start without jitter", () => {
    expect(lateConnector(1000, 2500)).toBe(true);
    expect(lateConnector(0, 1500)).toBe(true);
  });
});

describe("a summarised lane", () => {
  const plot = { x: 0, y: 0, width: 1000, height: 100 };
  const bucket = (start: number, counts: Record<string, number>, late = 0, maxLatenessMs: number | null = null) => ({
    start,
    end: start + 1000,
    worst: Object.keys(counts)[0]!,
    total: Object.values(counts).reduce((a, b) => a + b, 0),
    late,
    maxLatenessMs,
    counts,
  });
  const model = (buckets: ReturnType<typeof bucket>[]): TimelineModel => ({
    from: 0,
    to: 100_000,
    now: 100_000,
    mode: "summary",
    bucketMs: 1000,
    laneOffset: 0,
    laneTotal: 1,
    lanes: [finishLane("s", "s", [], 100_000, false, 0, buckets)],
  });
  const all = new Set(["succeeded", "failed", "missed", "planned", "running", "hollow"]);

  it("colours each bucket by its worst visible outcome, marks missed runs and draws late connectors as long as the lateness", () => {
    const paths = buildTimelinePaths(
      model([
        bucket(0, { succeeded: 3 }),
        bucket(10_000, { succeeded: 2, failed: 1 }, 1, 5_000),
        bucket(20_000, { succeeded: 1, missed: 1 }),
      ]),
      plot,
      all,
    );
    const keys = paths.map((p) => p.key);
    expect(keys).toEqual(expect.arrayContaining(["bar:succeeded", "bar:failed", "marker:missed", "late", "marker:planned"]));
    // 5 s of lateness at 100 s across 1000 px: a 50 px connector (in tenths of a pixel).
    expect(paths.find((p) => p.key === "late")!.d).toContain("h500");
    // The failure hides nothing: with failures filtered out, that bucket shows its successes.
    const noFailed = buildTimelinePaths(model([bucket(10_000, { succeeded: 2, failed: 1 })]), plot, new Set(["succeeded"]));
    expect(noFailed.map((p) => p.key)).toContain("bar:succeeded");
    expect(noFailed.map((p) => p.key)).not.toContain("bar:failed");
  });
});

describe("forecast marks are drawn apart from planned rows and runs", () => {
  const model = (fates: string[]): TimelineModel => ({
    from: 0,
    to: 10_000,
    now: 0,
    mode: "runs",
    bucketMs: 0,
    laneOffset: 0,
    laneTotal: 1,
    forecastFrom: 0,
    lanes: [
      finishLane("s", "s", [], 0, false, 0, [], {
        forecast: fates.map((fate, i) => ({ plannedAt: 1000 + i * 2000, nominalAt: 1000 + i * 2000, fate, reason: null })),
      }),
    ],
  });

  it("draws each fate as an outline only (never filled), a fire that will not run with a dashed stub too", () => {
    const paths = buildTimelinePaths(model(["run", "excluded", "run"]), plot, new Set(["forecast"]));
    const run = paths.find((p) => p.key === "fc:run")!;
    const excluded = paths.find((p) => p.key === "fc:excluded")!;
    expect(run.fill).toBe("none");
    expect(excluded.fill).toBe("none");
    expect(run.stroke).not.toBe(excluded.stroke);
    expect(run.d.match(/M/g)).toHaveLength(2);
    expect(paths.find((p) => p.key === "fcstub:excluded")?.dash).toBeTruthy();
    expect(paths.some((p) => p.key.startsWith("marker:"))).toBe(false);
  });

  it("draws no forecast when the legend hides it", () => {
    expect(buildTimelinePaths(model(["run"]), plot, new Set(["succeeded"])).some((p) => p.key.startsWith("fc"))).toBe(false);
  });
});
