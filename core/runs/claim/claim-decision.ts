// What a claim does with each delivered job, decided from rows already locked (see claim-run.ts).
// Pure: the same inputs always give the same actions, and jobs of one batch are decided in order
// against a shared view, so the second of two runs of a 'skip' schedule sees the first one started.
import type { LockedGroup, LockedRun, LockedSchedule } from "../locks/lock-run-scope";
import type { RunEventType } from "../record-run-event";
import { decideStartRate, type RateView } from "./start-rate-limit";

export interface ClaimItem {
  run: LockedRun;
  jobId: string;
  /** The attempt number the job was sent for. */
  attempt: number;
}

/** What the batch knows about other runs, read under the same locks. */
export interface ClaimView {
  /** Runs of a schedule in 'running' or 'retrying' (overlap-active), per schedule id. */
  active: Map<string, { id: string; state: string }[]>;
  /** A run of the schedule already waiting for overlap (buffer_one's buffer), per schedule id. */
  buffered: Map<string, string>;
  /** Runs of a concurrency group in 'running', per group. */
  running: Map<string, number>;
  /** Runs waiting for a slot of a group, oldest first, per group. */
  waiting: Map<string, { id: string; dueAt: Date }[]>;
  /** Per group with a start-rate limit: the runs waiting for it and this batch's starts. */
  rate?: Map<string, RateView>;
}

export type ClaimAction =
  | { kind: "start" }
  | { kind: "suppress"; reason: string }
  | {
      kind: "end";
      state: "missed" | "skipped_overlap" | "paused" | "cancelled";
      event: RunEventType;
      message: string;
      data?: Record<string, unknown>;
    }
  | { kind: "wait"; reason: "overlap" | "concurrency"; message: string; data: Record<string, unknown>; wake?: string[] }
  /** Held back by the group's start-rate limit: a job due at wakeAt tries again. */
  | { kind: "wait"; reason: "rate_limit"; message: string; data: Record<string, unknown>; wakeAt: Date; wake?: undefined }
  /** cancel_running: cancel these active runs first (as an operator would), then decide again. */
  | { kind: "cancel_active"; runIds: string[] };

export function duplicateReason(run: LockedRun, attempt: number): string | null {
  if (run.state !== "queued" && run.state !== "retrying") return `run is already ${run.state}`;
  if (attempt !== run.attempt + 1) return `job is for attempt ${attempt}, the run expects attempt ${run.attempt + 1}`;
  if (run.state === "retrying" && run.currentAttemptState === "running") return `attempt ${run.attempt} may still be alive`;
  return null;
}

export function decideClaim(
  item: ClaimItem,
  schedule: LockedSchedule,
  group: LockedGroup | null,
  view: ClaimView,
  cancelled = false,
): ClaimAction {
  const { run } = item;
  const duplicate = duplicateReason(run, item.attempt);
  if (duplicate) return { kind: "suppress", reason: duplicate };
  const firstStart = run.state === "queued";

  if (firstStart && schedule.deleted) {
    return { kind: "end", state: "cancelled", event: "cancelled", message: "schedule was deleted before the run started" };
  }
  if (firstStart && schedule.paused && run.kind !== "manual") {
    return { kind: "end", state: "paused", event: "paused", message: "schedule is paused" };
  }
  if (firstStart && run.deadlinePassed) {
    return {
      kind: "end",
      state: "missed",
      event: "missed",
      message: `not started within the starting deadline (${schedule.startingDeadlineSeconds} s after due)`,
      data: { dueAt: run.dueAt.toISOString(), startingDeadlineSeconds: schedule.startingDeadlineSeconds },
    };
  }

  if (firstStart && schedule.overlapPolicy !== "allow") {
    const active = (view.active.get(schedule.id) ?? []).filter((a) => a.id !== run.id);
    if (active.length > 0) {
      const activeRunIds = active.map((a) => a.id);
      if (schedule.overlapPolicy === "skip") {
        return {
          kind: "end",
          state: "skipped_overlap",
          event: "skipped_overlap",
          message: `another run of the schedule is active (${active.map((a) => a.state).join(", ")})`,
          data: { policy: "skip", activeRunIds },
        };
      }
      if (schedule.overlapPolicy === "buffer_one") {
        const buffered = view.buffered.get(schedule.id);
        if (buffered && buffered !== run.id) {
          return {
            kind: "end",
            state: "skipped_overlap",
            event: "skipped_overlap",
            message: "another run is active and one is already buffered",
            data: { policy: "buffer_one", activeRunIds, bufferedRunId: buffered },
          };
        }
        return {
          kind: "wait",
          reason: "overlap",
          message: "waiting for the active run of this schedule to end",
          data: { policy: "buffer_one", activeRunIds },
        };
      }
      // cancel_running: the newer occurrence wins; the active ones are cancelled, then it waits for them to end.
      if (!cancelled) return { kind: "cancel_active", runIds: activeRunIds };
      return {
        kind: "wait",
        reason: "overlap",
        message: "waiting for the cancelled run of this schedule to end",
        data: { policy: "cancel_running", cancelledRunIds: activeRunIds },
      };
    }
  }

  if (group) {
    const running = view.running.get(group.name) ?? 0;
    const data = { group: group.name, maxRunning: group.maxRunning, running };
    const message = `waiting for a slot in concurrency group ${group.name}`;
    if (running >= group.maxRunning) return { kind: "wait", reason: "concurrency", message, data };
    // First come, first served: a free slot goes to runs that have waited longer (woken now), not to
    // whichever job happened to be fetched first.
    const older = (view.waiting.get(group.name) ?? []).filter(
      (w) => w.id !== run.id && (w.dueAt.getTime() < run.dueAt.getTime() || (w.dueAt.getTime() === run.dueAt.getTime() && w.id < run.id)),
    );
    if (older.length > 0) {
      const wake = older.slice(0, group.maxRunning - running).map((w) => w.id);
      return { kind: "wait", reason: "concurrency", message, data: { ...data, yieldedTo: wake }, wake };
    }
    const rateWait = decideStartRate(run, group, view.rate?.get(group.name));
    if (rateWait) return rateWait;
  }
  return { kind: "start" };
}

/** Updates the shared view after an action, for the jobs decided after it in the same batch. */
export function applyToView(view: ClaimView, run: LockedRun, schedule: LockedSchedule, action: ClaimAction): void {
  if (action.kind === "start") {
    const active = view.active.get(schedule.id) ?? [];
    view.active.set(schedule.id, [...active.filter((a) => a.id !== run.id), { id: run.id, state: "running" }]);
    if (run.concurrencyGroup) view.running.set(run.concurrencyGroup, (view.running.get(run.concurrencyGroup) ?? 0) + 1);
    const rate = run.concurrencyGroup ? view.rate?.get(run.concurrencyGroup) : undefined;
    if (rate) rate.batchStarts += 1;
    if (view.buffered.get(schedule.id) === run.id) view.buffered.delete(schedule.id);
  } else if (action.kind === "wait") {
    if (action.reason === "overlap") view.buffered.set(schedule.id, run.id);
    else if (action.reason === "rate_limit") {
      const rate = view.rate?.get(run.concurrencyGroup!);
      if (rate) rate.batchWaiting += 1;
    } else if (run.concurrencyGroup) {
      const w = (view.waiting.get(run.concurrencyGroup) ?? []).filter((x) => !action.wake?.includes(x.id) && x.id !== run.id);
      view.waiting.set(
        run.concurrencyGroup,
        [...w, { id: run.id, dueAt: run.dueAt }].sort((a, b) => a.dueAt.getTime() - b.dueAt.getTime()),
      );
    }
  }
}
