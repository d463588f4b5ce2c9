// What a run-after link means, in one place: which upstream occurrence a downstream occurrence waits for (the
// mapping) and which of its outcomes lets the downstream run (the condition). The chain sweep, the run page, re-run
// with downstream and the docs all read these; the SQL twins below are the same rules for set-based statements.
import type { RunState } from "../run-states";

export const CHAIN_CONDITIONS = ["succeeded", "finished", "failed"] as const;
export type ChainCondition = (typeof CHAIN_CONDITIONS)[number];

export const CHAIN_MAPPINGS = ["same_time", "latest_before", "same_day"] as const;
export type ChainMapping = (typeof CHAIN_MAPPINGS)[number];

/** Upstream end states in which the upstream ran and ended: the only ones a condition can be met by. */
export const RAN_AND_ENDED: readonly RunState[] = ["succeeded", "failed", "timed_out", "hollow", "zombie"];

/** The upstream end states each condition accepts; any other end state makes the downstream occurrence impossible. */
export const CONDITION_STATES: Record<ChainCondition, readonly RunState[]> = {
  succeeded: ["succeeded"],
  finished: RAN_AND_ENDED,
  failed: ["failed", "timed_out", "zombie"],
};

/**
 * SQL: the bounds of the upstream occurrences a link maps a downstream occurrence to, as `lo` and `hi` (inclusive)
 * timestamptz expressions; the mapped occurrence is the latest scheduled one between them. `dep` aliases a
 * schedule_dependencies row, `at` is the downstream occurrence's planned time. Range bounds (not a CASE on the row)
 * keep it an index range of runs (schedule_id, planned_at).
 */
export function mappedRangeSql(dep: string, at: string): { lo: string; hi: string } {
  const day = `date_trunc('day', ${at} AT TIME ZONE ${dep}.mapping_timezone)`;
  return {
    lo: `CASE ${dep}.mapping WHEN 'same_time' THEN ${at} WHEN 'same_day' THEN (${day}) AT TIME ZONE ${dep}.mapping_timezone ELSE '-infinity'::timestamptz END`,
    hi: `CASE ${dep}.mapping WHEN 'same_day' THEN ((${day} + interval '1 day') AT TIME ZONE ${dep}.mapping_timezone) - interval '1 millisecond' ELSE ${at} END`,
  };
}

/**
 * SQL: a LATERAL subquery (alias `u`: id, state, planned_at, wait_reason) giving the upstream occurrence a link maps
 * to, if any. A manual run (trigger now) is an occurrence of the upstream at the instant it was triggered: the
 * latest-before and same-day mappings see it, so triggering the upstream by hand feeds its downstream. Backfill runs
 * (past instants replayed) are not.
 */
export function mappedUpstreamSql(dep: string, at: string): string {
  const { lo, hi } = mappedRangeSql(dep, at);
  return `LATERAL (
      SELECT u.id, u.state, u.planned_at, u.wait_reason FROM runs u
       WHERE u.schedule_id = ${dep}.upstream_id AND u.kind IN ('scheduled', 'manual')
         AND u.planned_at >= ${lo} AND u.planned_at <= ${hi}
       ORDER BY u.planned_at DESC LIMIT 1) u`;
}

const list = (states: readonly string[]) => states.map((s) => `'${s}'`).join(", ");

/** SQL: 'met' | 'impossible' | 'wait' for upstream state `state` (null: no occurrence yet) under `dep`.condition. */
export function verdictSql(dep: string, state: string): string {
  const met = CHAIN_CONDITIONS.map((c) => `(${dep}.condition = '${c}' AND ${state} IN (${list(CONDITION_STATES[c])}))`).join(" OR ");
  return `CASE WHEN ${state} IS NULL OR ${state} IN ('planned', 'queued', 'running', 'retrying') THEN 'wait'
               WHEN ${met} THEN 'met' ELSE 'impossible' END`;
}
