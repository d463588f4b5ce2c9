// The one rule for a "plain" run: nothing but the run itself decides whether it may start, and nobody
// waits for the slot it holds — its schedule allows overlap and it has no concurrency group. The planner
// marks such runs' jobs (RunJobData.plain), and the one-statement claim and outcome paths
// (claim-run.ts claimPlainRuns, finish-run.ts finishPlainRuns) take only runs that satisfy it.

/** SQL boolean for run `run` of schedule `schedule` (the aliases in the caller's query). */
export function plainRunSql(run = "r", schedule = "s"): string {
  return `(${schedule}.overlap_policy = 'allow' AND ${run}.concurrency_group IS NULL)`;
}
