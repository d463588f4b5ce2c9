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
