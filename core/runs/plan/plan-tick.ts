// One planner tick, the same on every worker: enqueue what is due soon, plan ahead (a bounded slice of the work),
// settle what is overdue (misfire policy), resume pauses whose time has come, decide waiting chained occurrences,
// enqueue again. Each step is its own
// short transaction(s) with SKIP LOCKED, so planners on many workers share the work and never wait on each other.
import type pg from "pg";
import type { PgBoss } from "pg-boss";
import { autoResumeDueSchedules } from "../../schedules/resume-schedule";
import { enqueueCatchUpRuns, enqueueDueRuns } from "./enqueue-due-runs";
import { findSchedulesToSweep, sweepMisfires } from "./mark-missed-runs";
import { planDueSchedules } from "./plan-due-schedules";
import { releaseChainedRuns, type ChainSweepResult } from "../chain/release-chained-runs";

export interface PlannerTickResult {
  planned: number;
  missed: number;
  rescued: number;
  paused: number;
  resumed: number;
  enqueued: number;
  /** The chain sweep's decisions (core/runs/chain/release-chained-runs.ts); absent on a slice-only tick. */
  chained?: ChainSweepResult;
  /** Planning stopped at its budget with schedules still due for it: tick again soon. */
  planBacklog: boolean;
}

/** Planning's share of a tick (ms): a tick stays about this long plus the enqueue and the sweep, however much is due. */
export const PLAN_BUDGET_MS = 300;

/**
 * `catchUp: false` leaves catch-up and backfill runs waiting: a worker settles misfires before its dispatcher
 * starts, but those runs get a fresh starting deadline when enqueued, so they wait until it can start them.
 * `sliceOnly`: the enqueue and one planning slice, nothing else — what a planner runs between its full ticks while a
 * planning backlog lasts (the sweep, auto-resume and catch-up enqueue keep their once-a-tick pace).
 */
export async function runPlannerTick(
  pool: pg.Pool,
  boss: PgBoss,
  opts: { horizonSeconds: number; catchUp?: boolean; planBudgetMs?: number; sliceOnly?: boolean },
): Promise<PlannerTickResult> {
  // Runs already due soon are enqueued before planning: a large planning backlog (100,000 schedules created at once
  // take many slices) must not hold back the jobs of a bunched second. Safe to do first: enqueueDueRuns takes a
  // scheduled run only once its schedule is planned through now, and never a paused, deleted or overdue one.
  const early = await enqueueDueRuns(pool, boss);
  const plan = await planDueSchedules(pool, { horizonSeconds: opts.horizonSeconds, budgetMs: opts.planBudgetMs ?? PLAN_BUDGET_MS });
  const result: PlannerTickResult = {
    planned: plan.inserted,
    missed: 0,
    rescued: 0,
    paused: 0,
    resumed: 0,
    enqueued: early,
    planBacklog: plan.more,
  };
  if (opts.sliceOnly) return result;
  result.resumed = await autoResumeDueSchedules(pool);
  const swept = await sweepMisfires(pool, await findSchedulesToSweep(pool), boss);
  // Released chained occurrences are due now: the enqueue below sends their jobs in this same tick.
  result.chained = await releaseChainedRuns(pool);
  result.missed = swept.reduce((n, s) => n + s.missed, 0);
  result.rescued = swept.reduce((n, s) => n + s.rescued, 0);
  result.paused = swept.reduce((n, s) => n + s.paused, 0);
  result.enqueued += (await enqueueDueRuns(pool, boss)) + (opts.catchUp === false ? 0 : await enqueueCatchUpRuns(pool, boss));
  return result;
}
