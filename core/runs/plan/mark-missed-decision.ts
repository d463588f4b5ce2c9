// Misfire policy as a pure decision over one schedule's not-started occurrences that are already due.
//
// An occurrence is *overdue* when its starting deadline has passed (due_at + starting_deadline_seconds <
// database now) without a start: nobody can start it any more under its own deadline. What happens then:
//   skip      every overdue occurrence is recorded missed; nothing extra runs.
//   run_once  the fires missed in one stretch (downtime, overload) are coalesced into one run: the most
//             recent overdue occurrence is *rescued* (due_at moves to now, so it gets a fresh deadline) and
//             the rest are missed — unless an occurrence of that stretch is still within its deadline, which
//             then is the one run.
//   catch_up  like run_once with up to catch_up_limit runs: the most recent ones (counting those still within
//             their deadline) are rescued, the older ones missed.
// An occurrence is rescued at most once; waiting runs (wait_reason set), manual runs and backfill runs are
// never rescued: past their deadline they are missed. While the planner is still writing rows for a long
// gap (cursor behind now), the candidates for a rescue are held rather than rescued, so the rescue goes to
// the truly latest fires once the whole gap is on record.
//
// While a schedule is paused, its fires are held instead: as they pass, all but the ones the misfire policy
// would run on resume (none for skip, the latest for run_once, the latest catch_up_limit for catch_up) are
// recorded `paused`. On resume those held ones are rescued and the rest recorded `paused` (decideResume).
import type { MisfirePolicy } from "../../schedules/schedule-input";

export interface PendingRun {
  id: string;
  plannedAt: Date;
  kind: "scheduled" | "manual" | "backfill";
  waitReason: string | null;
  /** Starting deadline passed (database clock). */
  overdue: boolean;
  /** Already rescued once by a misfire policy or a resume. */
  rescuedBefore: boolean;
  /** Set when the run is queued: the id of the pg-boss job that would start it. */
  jobId?: string | null;
  /** The run's handler (its job sits in that handler's queue). */
  handler?: string;
}

export interface MisfireDecision {
  /** Record as missed. */
  missed: string[];
  /** Give a fresh deadline (due now). */
  rescue: string[];
  /** Record as paused (fell inside a pause). */
  paused: string[];
}

export function runsKeptByPolicy(policy: MisfirePolicy, catchUpLimit: number): number {
  return policy === "skip" ? 0 : policy === "run_once" ? 1 : Math.max(0, catchUpLimit);
}

const newestFirst = (a: PendingRun, b: PendingRun) => b.plannedAt.getTime() - a.plannedAt.getTime();

/**
 * `pending`: the schedule's not-started runs whose due time has come. `caughtUp`: the planning cursor has
 * reached now (every past fire has its row).
 */
export function decideMisfires(
  pending: readonly PendingRun[],
  schedule: { misfirePolicy: MisfirePolicy; catchUpLimit: number; paused: boolean },
  caughtUp: boolean,
): MisfireDecision {
  const decision: MisfireDecision = { missed: [], rescue: [], paused: [] };
  const keep = runsKeptByPolicy(schedule.misfirePolicy, schedule.catchUpLimit);

  if (schedule.paused) {
    const held = pending.filter((r) => r.kind === "scheduled").sort(newestFirst);
    decision.paused = held.slice(keep).map((r) => r.id);
    // Manual runs are not held by a pause (an operator asked for them explicitly); their deadline still holds.
    decision.missed = pending.filter((r) => r.kind === "manual" && r.overdue).map((r) => r.id);
    return decision;
  }

  const overdue = pending.filter((r) => r.overdue);
  if (overdue.length === 0) return decision;
  const rescuable = (r: PendingRun) => r.kind === "scheduled" && r.waitReason === null && !r.rescuedBefore;
  const candidates = overdue.filter(rescuable).sort(newestFirst);
  const stillOnTime = pending.filter((r) => !r.overdue && r.kind === "scheduled").length;
  const slots = caughtUp ? Math.max(0, keep - stillOnTime) : keep;
  const chosen = new Set(candidates.slice(0, slots).map((r) => r.id));
  if (caughtUp) decision.rescue = [...chosen];
  decision.missed = overdue.filter((r) => !chosen.has(r.id)).map((r) => r.id);
  return decision;
}

/** On resume: every held fire of the pause is either run now (the newest, per policy) or recorded paused. */
export function decideResume(
  held: readonly Pick<PendingRun, "id" | "plannedAt">[],
  schedule: { misfirePolicy: MisfirePolicy; catchUpLimit: number },
): { rescue: string[]; paused: string[] } {
  const keep = runsKeptByPolicy(schedule.misfirePolicy, schedule.catchUpLimit);
  const sorted = [...held].sort((a, b) => b.plannedAt.getTime() - a.plannedAt.getTime());
  return { rescue: sorted.slice(0, keep).map((r) => r.id), paused: sorted.slice(keep).map((r) => r.id) };
}
