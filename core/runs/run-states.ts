// The run state machine, shared by the console and the worker. States and which moves are legal.
export const RUN_STATES = [
  "planned", // occurrence row exists, no pg-boss job yet (wait_reason 'upstream': waits for the schedules it runs after)
  "queued", // a job exists (or the run waits for a slot: wait_reason), not started
  "running", // an attempt is executing
  "retrying", // an attempt failed; the next one is scheduled at next_attempt_at (counts as active)
  "succeeded",
  "failed",
  "timed_out",
  "cancelled",
  "skipped_overlap", // another run of the schedule was active when this one was due
  "missed", // due, but not started before its starting deadline
  "paused", // fell inside a pause of its schedule
  // its schedule's fire plan removed it (a calendar blocks it, or another fire was moved onto its instant), or an upstream
  // occurrence it runs after ended in a state its run-after condition cannot accept (core/runs/chain/)
  "excluded",
  "hollow", // succeeded but did no work where work was expected
  "zombie", // its worker stopped heartbeating; ended by the reaper with no attempts left
] as const;

export type RunState = (typeof RUN_STATES)[number];

export const TERMINAL_STATES: readonly RunState[] = [
  "succeeded",
  "failed",
  "timed_out",
  "cancelled",
  "skipped_overlap",
  "missed",
  "paused",
  "excluded",
  "hollow",
  "zombie",
];

export const CANCELLABLE_STATES: readonly RunState[] = ["planned", "queued", "running", "retrying", "zombie"];

/** What the console's header and the runs filter call "failed": the handler failed, or it was killed at its timeout. */
export const FAILED_STATES: readonly RunState[] = ["failed", "timed_out"];

/** Ended badly: an operator may re-run the occurrence (same key, next attempt; core/runs/operate/rerun-run.ts). */
export const RERUNNABLE_STATES: readonly RunState[] = ["failed", "timed_out", "cancelled", "hollow", "zombie", "missed"];

export function isTerminal(state: string): boolean {
  return (TERMINAL_STATES as readonly string[]).includes(state);
}

export const RUN_KINDS = ["scheduled", "manual", "backfill"] as const;
export type RunKind = (typeof RUN_KINDS)[number];

/** Worst first: the state a timeline summary bucket is coloured by (core/runs/read/timeline.ts, the console's drawing). */
export const WORST_STATE_ORDER: readonly RunState[] = [
  "zombie",
  "failed",
  "timed_out",
  "missed",
  "hollow",
  "skipped_overlap",
  "cancelled",
  "running",
  "retrying",
  "queued",
  "succeeded",
  "paused",
  "excluded",
  "planned",
];
