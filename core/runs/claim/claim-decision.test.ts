import { describe, expect, it } from "vitest";
import { applyToView, decideClaim, type ClaimView } from "./claim-decision";
import type { LockedGroup, LockedRun, LockedSchedule } from "../locks/lock-run-scope";

const schedule = (p: Partial<LockedSchedule> = {}): LockedSchedule => ({
  id: "s1",
  overlapPolicy: "skip",
  startingDeadlineSeconds: 60,
  paused: false,
  deleted: false,
  expectRecordsMin: null,
  retryBaseSeconds: 1,
  retryMaxSeconds: 10,
  ...p,
});

let n = 0;
const run = (p: Partial<LockedRun> = {}): LockedRun => ({
  id: `r${++n}`,
  scheduleId: "s1",
  kind: "scheduled",
  state: "queued",
  waitReason: null,
  attempt: 0,
  wakes: 0,
  workerId: null,
  handler: "demo.noop",
  payload: {},
  timeoutSeconds: 10,
  graceSeconds: 1,
  maxAttempts: 1,
  concurrencyGroup: null,
  idempotencyKey: "k",
  plannedAt: new Date(1000 * n),
  dueAt: new Date(1000 * n),
  cancelRequestedAt: null,
  currentAttemptState: null,
  now: new Date(0),
  deadlinePassed: false,
  heartbeatAgeMs: null,
  ...p,
});

const view = (): ClaimView => ({ active: new Map(), buffered: new Map(), running: new Map(), waiting: new Map() });
const item = (r: LockedRun, attempt = r.attempt + 1) => ({ run: r, jobId: "j", attempt });

describe("decideClaim", () => {
  it("suppresses deliveries for runs no longer queued, wrong attempts and retries of a possibly live attempt", () => {
    expect(decideClaim(item(run({ state: "running", attempt: 1 }), 1), schedule(), null, view())).toEqual({
      kind: "suppress",
      reason: "run is already running",
    });
    expect(decideClaim(item(run(), 2), schedule(), null, view()).kind).toBe("suppress");
    expect(decideClaim(item(run({ state: "retrying", attempt: 1, currentAttemptState: "running" })), schedule(), null, view()).kind).toBe(
      "suppress",
    );
    expect(decideClaim(item(run({ state: "retrying", attempt: 1, currentAttemptState: "failed" })), schedule(), null, view()).kind).toBe(
      "start",
    );
  });

  it("misses an overdue run, pauses a scheduled run of a paused schedule but not a manual one", () => {
    expect(decideClaim(item(run({ deadlinePassed: true })), schedule(), null, view())).toMatchObject({ kind: "end", state: "missed" });
    expect(decideClaim(item(run()), schedule({ paused: true }), null, view())).toMatchObject({ kind: "end", state: "paused" });
    expect(decideClaim(item(run({ kind: "manual" })), schedule({ paused: true }), null, view()).kind).toBe("start");
  });

  it("applies the overlap policies against active runs, including earlier ones of the same batch", () => {
    const v = view();
    const s = schedule({ overlapPolicy: "skip" });
    const first = run();
    const a1 = decideClaim(item(first), s, null, v);
    expect(a1.kind).toBe("start");
    applyToView(v, first, s, a1);
    expect(decideClaim(item(run()), s, null, v)).toMatchObject({ kind: "end", state: "skipped_overlap" });
    expect(decideClaim(item(run()), schedule({ overlapPolicy: "allow" }), null, v).kind).toBe("start");

    const b = schedule({ overlapPolicy: "buffer_one" });
    const waiter = run();
    const w = decideClaim(item(waiter), b, null, v);
    expect(w).toMatchObject({ kind: "wait", reason: "overlap" });
    applyToView(v, waiter, b, w);
    expect(decideClaim(item(run()), b, null, v)).toMatchObject({
      kind: "end",
      state: "skipped_overlap",
      data: { bufferedRunId: waiter.id },
    });

    expect(decideClaim(item(run()), schedule({ overlapPolicy: "cancel_running" }), null, v)).toEqual({
      kind: "cancel_active",
      runIds: [first.id],
    });
    expect(decideClaim(item(run()), schedule({ overlapPolicy: "cancel_running" }), null, v, true)).toMatchObject({
      kind: "wait",
      reason: "overlap",
    });
  });

  it("holds a group's limit and serves older waiting runs first", () => {
    const g: LockedGroup = { name: "g", maxRunning: 2 };
    const s = schedule({ overlapPolicy: "allow" });
    const v = view();
    const runs = [run({ concurrencyGroup: "g" }), run({ concurrencyGroup: "g" }), run({ concurrencyGroup: "g" })];
    const actions = runs.map((r) => {
      const a = decideClaim(item(r), s, g, v);
      applyToView(v, r, s, a);
      return a.kind;
    });
    expect(actions).toEqual(["start", "start", "wait"]);

    const fresh = view();
    fresh.running.set("g", 1);
    fresh.waiting.set("g", [{ id: "old", dueAt: new Date(0) }]);
    expect(decideClaim(item(run({ concurrencyGroup: "g" })), s, g, fresh)).toMatchObject({ kind: "wait", wake: ["old"] });
  });
});
