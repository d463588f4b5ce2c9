// The default path's claim in one round trip: runs of 'skip', 'buffer_one' and 'cancel_running'
// schedules and runs in concurrency groups start here when they are free to start — the same decision the locked
// claim (claim-run.ts claimRuns, claim-decision.ts) makes for them, taken under the same locks: the SQL function
// vigil_claim_free_runs (locks/under-run-locks.ts) locks their schedules and groups in the engine's order and waits
// for them, then runs the statement below with a fresh snapshot, which locks the runs (SKIP LOCKED), decides
// and writes the starts, their attempts and 'started' events.
// A run starts here only when decideClaim would start it:
//   - the job is for its next attempt, it is queued (or retrying with the previous attempt ended), its schedule
//     is neither deleted nor paused, and (first start) its starting deadline has not passed;
//   - overlap (first start of a schedule that does not allow it): no other run of the schedule is running or
//     retrying, and it is the oldest such run of its schedule in the batch;
//   - group: the group's running runs plus the batch's older starts of the group stay within its limit, and no
//     run of the group has waited longer for a slot.
// Everything else — skipped, missed, paused, waiting, cancel_running's cancel, a duplicate, a run another
// transaction holds — is left (undefined) to claimRuns, which decides it under the full locks as before: rules
// that end or park a run live there only. Being a subset of decideClaim's starts is what keeps the overlap and
// group rules exact here (claim-free-runs.db.test.ts checks it against a large fan-out).
// A group with a start-rate limit (start-rate-limit.ts) never starts here: its starts are counted and recorded
// under the group lock by claimRuns, so GROUP_ADMITS_SQL leaves them all to it.
// The read models' changes of these starts are appended by the statement itself (read-model-deltas.ts), not by
// the runs UPDATE triggers.
import type { Queryable } from "../../db/pool";
import { pausedSql } from "../paused";
import { startingDeadlinePassedSql } from "../starting-deadline";
import { underRunLocksSql } from "../locks/under-run-locks";
import { CONSOLE_VERSION_BUMP_SQL, HOT_DELTAS_SETTING, START_DELTAS_SQL } from "../read-model-deltas";
import {
  attemptRowsSql,
  START_LATENESS_SQL,
  startedEventsSql,
  startedRun,
  type ClaimRequest,
  type ClaimResult,
  type StartedRunRow,
} from "./claim-run";

/**
 * SQL boolean: candidate `o` (its group, due_at, id, and grank: its place among the batch's candidates of the
 * group, oldest first) may take a slot of group `g` now, and `g` has no start-rate limit.
 */
const GROUP_ADMITS_SQL = `(
  (SELECT count(*) FROM runs x WHERE x.concurrency_group = o.concurrency_group AND x.state = 'running') + o.grank <= g.max_running
  AND NOT EXISTS (SELECT 1 FROM runs w
                   WHERE w.concurrency_group = o.concurrency_group AND w.state = 'queued' AND w.wait_reason = 'concurrency'
                     AND w.id <> o.id AND (w.due_at, w.id) < (o.due_at, o.id))
  AND g.max_starts IS NULL)`;

const CLAIM_FREE_RUNS_SQL = `WITH t AS (SELECT clock_timestamp() AS now),
     q AS (SELECT * FROM jsonb_to_recordset(p_args->'reqs') AS q(id uuid, attempt int, job_id text)),
     l AS (
       -- One primary-key lookup per delivery (as in claimPlainRuns: the OFFSET keeps the plan on the key).
       SELECT r.id, r.schedule_id, r.concurrency_group, r.due_at, r.state, q.job_id,
              CASE WHEN r.state = 'queued' AND s.overlap_policy <> 'allow' THEN r.schedule_id END AS exclusive_on,
              r.lateness_ms AS was_lateness_ms, r.started_at AS was_started_at, s.start_jitter_ms
         FROM q, t, LATERAL (SELECT * FROM runs WHERE runs.id = q.id OFFSET 0 FOR NO KEY UPDATE SKIP LOCKED) r,
              -- The schedule by key too: joined, the generic plan hashed every schedule on each call (×N at a fan-out of N).
              LATERAL (SELECT * FROM schedules WHERE schedules.id = r.schedule_id OFFSET 0) s
        WHERE q.attempt = r.attempt + 1 AND s.deleted_at IS NULL
          AND NOT ${pausedSql("s", "t.now")}
          AND ((r.state = 'queued' AND NOT ${startingDeadlinePassedSql("r", "s", "t.now")})
               OR (r.state = 'retrying'
                   AND NOT EXISTS (SELECT 1 FROM attempts a WHERE a.run_id = r.id AND a.number = r.attempt AND a.state = 'running')))
     ),
     o AS (
       SELECT l.*, row_number() OVER (PARTITION BY l.concurrency_group ORDER BY l.due_at, l.id) AS grank
         FROM (SELECT l.*, row_number() OVER (PARTITION BY l.exclusive_on ORDER BY l.due_at, l.id) AS srank FROM l) l
        WHERE l.exclusive_on IS NULL
           OR (l.srank = 1
               AND NOT EXISTS (SELECT 1 FROM runs a WHERE a.schedule_id = l.schedule_id AND a.state IN ('running', 'retrying') AND a.id <> l.id))
     ),
     c AS (
       SELECT o.id, o.job_id, o.was_lateness_ms, o.was_started_at, o.start_jitter_ms
         FROM o LEFT JOIN concurrency_groups g ON g.name = o.concurrency_group
        WHERE o.concurrency_group IS NULL OR g.name IS NULL OR ${GROUP_ADMITS_SQL}
     ),
     u AS (
       UPDATE runs r SET state = 'running', attempt = r.attempt + 1, wait_reason = NULL, worker_id = p_args->>'worker',
              started_at = coalesce(r.started_at, t.now), heartbeat_at = t.now, next_attempt_at = NULL,
              lateness_ms = ${START_LATENESS_SQL}, updated_at = t.now
         FROM c, t
        WHERE r.id = c.id
        RETURNING r.id, r.schedule_id, r.idempotency_key, r.attempt, r.handler, r.payload, r.timeout_seconds,
                  r.grace_seconds, r.max_attempts, r.lateness_ms, c.job_id, t.now,
                  r.planned_at, r.kind, r.reruns, r.started_at, c.was_lateness_ms, c.was_started_at, c.start_jitter_ms
     ),
     a AS (${attemptRowsSql("u", "p_args->>'worker'")}),
     e AS (INSERT INTO run_events (run_id, type, attempt, worker_id, message, data) ${startedEventsSql("u", "p_args->>'worker'")}),
     ${START_DELTAS_SQL}
     -- The started run as before (its columns for the deltas left out).
     SELECT to_jsonb(u) - '{planned_at,kind,reruns,started_at,was_lateness_ms,was_started_at,start_jitter_ms}'::text[] FROM u`;

/** The body of vigil_claim_free_runs (its newest migration: 20261210100000; claim-free-runs.db.test.ts keeps them equal). */
export const CLAIM_FREE_RUNS_FUNCTION_BODY = underRunLocksSql(CLAIM_FREE_RUNS_SQL, CONSOLE_VERSION_BUMP_SQL, HOT_DELTAS_SETTING);

/**
 * Starts, in one statement (one round trip, its own transaction), the deliveries whose runs are free to start
 * under every rule; returns, in request order, the started runs and undefined for every delivery left to
 * claimRuns. Deliveries of one run repeated in the batch are left to claimRuns after the first.
 */
export async function claimFreeRuns(db: Queryable, reqs: ClaimRequest[]): Promise<(ClaimResult | undefined)[]> {
  const out: (ClaimResult | undefined)[] = new Array(reqs.length).fill(undefined);
  if (reqs.length === 0) return out;
  const first = new Map<string, number>();
  reqs.forEach((r, i) => first.has(r.runId) || first.set(r.runId, i));
  // Rows are locked in id order (SKIP LOCKED never waits, but a fixed order keeps it obviously safe).
  const idx = [...first.values()].sort((a, b) => (reqs[a]!.runId < reqs[b]!.runId ? -1 : 1));
  const args = {
    worker: reqs[0]!.workerId,
    reqs: idx.map((i) => ({ id: reqs[i]!.runId, attempt: reqs[i]!.attempt, job_id: reqs[i]!.jobId })),
  };
  const { rows } = await db.query<{ r: StartedRunRow }>({
    name: "vigil-claim-free-runs",
    text: `SELECT r FROM vigil_claim_free_runs($1::uuid[], $2::jsonb) AS r`,
    values: [idx.map((i) => reqs[i]!.runId), JSON.stringify(args)],
  });
  for (const { r } of rows) {
    out[first.get(r.id)!] = startedRun(r);
  }
  return out;
}
