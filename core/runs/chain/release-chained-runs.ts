// The chain sweep: every planner tick, waiting downstream occurrences (state 'planned', wait_reason 'upstream') are
// decided against the upstream occurrences their schedule's links map them to (chain-rules.ts), in ONE statement:
// - every link's condition met → released: wait_reason cleared and due now at the latest, so the tick's enqueue
//   (enqueue-due-runs.ts, the one path a due run takes to its job) sends it like any due run, with a fresh starting
//   deadline;
// - a link whose upstream occurrence ended in a state its condition cannot accept → 'excluded' with the reason;
// - still waiting past the wait deadline (after_wait_seconds from its due time) → 'missed' with the reason, which
//   the missed alert reports (core/alerts/run-alert-rules.ts).
// The waiting rows are taken FOR UPDATE SKIP LOCKED and the update checks their state again, so any number of
// planners sweep at once and each occurrence is decided exactly once. Time is the database clock.
import type { Queryable } from "../../db/pool";
import { mappedUpstreamSql, verdictSql } from "./chain-rules";

export interface ChainSweepResult {
  released: number;
  excluded: number;
  missed: number;
}

/** How far ahead of its due time a waiting occurrence is looked at (as far as the enqueue looks ahead, and more). */
export const CHAIN_LOOK_AHEAD_MS = 60_000;

const at = (col: string) => `to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS "UTC"')`;

export async function releaseChainedRuns(db: Queryable, opts: { limit?: number } = {}): Promise<ChainSweepResult> {
  const { rows } = await db.query<{ action: string; n: number }>(
    `WITH w AS (
       SELECT d.id, d.schedule_id, d.planned_at, d.due_at, s.after_wait_seconds
         FROM runs d JOIN schedules s ON s.id = d.schedule_id
        WHERE d.state = 'planned' AND d.wait_reason = 'upstream'
          AND d.due_at <= clock_timestamp() + make_interval(secs => $2::float8 / 1000)
        ORDER BY d.due_at
        LIMIT $1
          FOR UPDATE OF d SKIP LOCKED
     ),
     links AS (
       SELECT w.id, up.name AS upstream_name, dep.condition, u.id AS upstream_run, u.state AS upstream_state,
              u.planned_at AS upstream_at, ${verdictSql("dep", "u.state")} AS verdict
         FROM w
         JOIN schedule_dependencies dep ON dep.schedule_id = w.schedule_id
         JOIN schedules up ON up.id = dep.upstream_id
         LEFT JOIN ${mappedUpstreamSql("dep", "w.planned_at")} ON true
     ),
     decided AS (
       SELECT w.id,
              CASE WHEN bool_or(l.verdict = 'impossible') THEN 'excluded'
                   WHEN coalesce(bool_and(l.verdict = 'met'), true) THEN 'released'
                   WHEN clock_timestamp() > w.due_at + make_interval(secs => w.after_wait_seconds) THEN 'missed'
                   ELSE 'wait' END AS action,
              w.after_wait_seconds,
              string_agg(format('%s''s occurrence of %s ended %s, and this schedule runs after it %s', l.upstream_name,
                                ${at("l.upstream_at")}, l.upstream_state, l.condition), '; ' ORDER BY l.upstream_name)
                FILTER (WHERE l.verdict = 'impossible') AS impossible,
              string_agg(CASE WHEN l.upstream_run IS NULL THEN format('%s has no occurrence to run after yet', l.upstream_name)
                              ELSE format('%s''s occurrence of %s is still %s', l.upstream_name, ${at("l.upstream_at")}, l.upstream_state) END,
                         '; ' ORDER BY l.upstream_name) FILTER (WHERE l.verdict = 'wait') AS waiting,
              string_agg(format('%s %s (occurrence of %s)', l.upstream_name, l.upstream_state, ${at("l.upstream_at")}), '; '
                         ORDER BY l.upstream_name) FILTER (WHERE l.verdict = 'met') AS met,
              jsonb_agg(jsonb_build_object('upstream', l.upstream_name, 'runId', l.upstream_run, 'state', l.upstream_state,
                                           'condition', l.condition, 'verdict', l.verdict)) FILTER (WHERE l.id IS NOT NULL) AS upstream
         FROM w LEFT JOIN links l ON l.id = w.id
        GROUP BY w.id, w.due_at, w.after_wait_seconds
     ),
     upd AS (
       UPDATE runs r SET state = CASE a.action WHEN 'released' THEN 'planned' ELSE a.action END,
              wait_reason = NULL,
              due_at = CASE WHEN a.action = 'released' THEN greatest(r.due_at, clock_timestamp()) ELSE r.due_at END,
              updated_at = clock_timestamp()
         FROM decided a
        WHERE r.id = a.id AND a.action <> 'wait' AND r.state = 'planned' AND r.wait_reason = 'upstream'
       RETURNING r.id, a.action, CASE a.action WHEN 'excluded' THEN a.impossible WHEN 'missed' THEN a.waiting ELSE a.met END AS reason,
                 a.upstream, a.after_wait_seconds
     ),
     ev AS (
       INSERT INTO run_events (run_id, type, message, data)
       SELECT u.id, CASE u.action WHEN 'released' THEN 'woken' ELSE u.action END,
              CASE u.action
                WHEN 'released' THEN 'released: ' || coalesce(u.reason, 'it no longer runs after another schedule')
                WHEN 'excluded' THEN 'excluded: ' || u.reason
                ELSE format('missed: still waiting after its wait deadline (%s s): %s', u.after_wait_seconds, u.reason) END,
              jsonb_build_object('chain', u.action, 'reason', u.reason, 'upstream', coalesce(u.upstream, '[]'::jsonb))
         FROM upd u
     )
     SELECT action, count(*)::int AS n FROM upd GROUP BY action`,
    [opts.limit ?? 500, CHAIN_LOOK_AHEAD_MS],
  );
  const n = (a: string) => rows.find((r) => r.action === a)?.n ?? 0;
  return { released: n("released"), excluded: n("excluded"), missed: n("missed") };
}
