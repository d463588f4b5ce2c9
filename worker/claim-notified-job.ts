// The fast start of a run whose job a NOTIFY names: a manual trigger's wake-up carries
// its job id (core/queue/send-run-job.ts dueNotice), so a dispatcher that hears it takes THAT job by primary key
// instead of scanning the queue, and claims its run in the same statement — one round trip and one commit instead
// of a fetch (scan + its own commit) followed by the claim.
// What it keeps exact:
//   - the job: the UPDATE is pg-boss's fetch (core of plans.fetchNextJob for a 'standard' queue: state, started_on,
//     heartbeat_on, retry_count) with the same conditions (not yet active, not blocked, start_after passed), by id.
//     It locks the row as pg-boss's fetch does (FOR UPDATE SKIP LOCKED, then the state is re-checked on the latest
//     version): of two dispatchers that hear the same NOTIFY exactly one gets the job, and the other gets nothing at
//     once, without waiting for the first one's commit, and falls back to its usual fetch (which finds nothing).
//   - the claim: vigil_claim_free_runs (core/runs/claim/claim-free-runs.ts), called only when the job was taken, with
//     the arguments claimFreeRuns passes for a batch of one. A run it leaves undecided comes back without a result,
//     and the dispatcher hands it to the claim under full locks as it does any fetched job.
//   - durability: it runs on the hot-path pool (synchronous commit), like the claim it replaces; the job's update
//     commits with it.
// Every dispatcher of every worker serving the handler hears the NOTIFY and tries; the ones that lose the race are
// told so ("elsewhere": the job is locked by another's claim in flight, or already taken) and do nothing more. They
// used to fall back to a fetch from the queue, which found nothing — a scan per loser per trigger, run on the shared
// cores at the very moment the winner's claim and its commit are on the run's way to its handler. Should the winner's
// claim roll back instead (an error), the job is 'created' again and the dispatchers' poll (every second) fetches it.
import type { Queryable } from "../core/db/pool";
import { BOSS_DUE_JOB_SQL, BOSS_SCHEMA, BOSS_TAKE_SET_SQL } from "../core/queue/boss-job-moves";
import { startedRun, type ClaimResult, type StartedRunRow } from "../core/runs/claim/claim-run";

const FETCH_AND_CLAIM_SQL = `
  WITH n AS (
    SELECT j.id FROM ${BOSS_SCHEMA}.job j
     WHERE j.name = $1 AND j.id = $2::uuid AND ${BOSS_DUE_JOB_SQL}
       FOR UPDATE OF j SKIP LOCKED
  ),
  j AS (
    UPDATE ${BOSS_SCHEMA}.job j SET ${BOSS_TAKE_SET_SQL}
      FROM n
     WHERE j.name = $1 AND j.id = $2::uuid AND j.id = n.id
    RETURNING j.id, j.name, j.data
  )
  SELECT j.id, j.name, j.data, c.r, NULL::boolean AS elsewhere
    FROM j
    LEFT JOIN LATERAL (
      SELECT r FROM vigil_claim_free_runs(
        ARRAY[(j.data->>'runId')::uuid],
        jsonb_build_object('worker', $3::text,
                           'reqs', jsonb_build_array(jsonb_build_object('id', j.data->>'runId', 'attempt', (j.data->>'attempt')::int,
                                                                        'job_id', j.id::text)))) AS r
       WHERE j.data ? 'runId' AND j.data ? 'attempt'
    ) c ON true
  UNION ALL
  -- Not taken: the job as this statement's snapshot saw it. Already active (or past it), or still waiting, due and not
  -- blocked — then only a lock held by another transaction (a dispatcher's claim in flight) kept it from us.
  SELECT NULL, NULL, NULL, NULL,
         v.state >= 'active' OR (NOT v.blocked AND v.start_after <= ${BOSS_SCHEMA}.job_now()) AS elsewhere
    FROM ${BOSS_SCHEMA}.job v
   WHERE v.name = $1 AND v.id = $2::uuid AND NOT EXISTS (SELECT 1 FROM j)`;

export interface NotifiedJob {
  job: { id: string; name: string; data: unknown };
  /** The started run; undefined when the one-statement claim left the run to the claim under full locks. */
  claimed: ClaimResult | undefined;
}

/**
 * Takes job `jobId` of `queue` and claims its run. "elsewhere" when another dispatcher has it (its claim in flight or
 * committed): nothing to do. Null when it is not there to take for another reason (not yet due, blocked, of another
 * queue, gone): the caller then leaves it to its usual fetch.
 */
export async function claimNotifiedJob(
  db: Queryable,
  queue: string,
  jobId: string,
  workerId: string,
): Promise<NotifiedJob | "elsewhere" | null> {
  const { rows } = await db.query<{ id: string | null; name: string; data: unknown; r: StartedRunRow | null; elsewhere: boolean | null }>({
    name: "vigil-claim-notified-job",
    text: FETCH_AND_CLAIM_SQL,
    values: [queue, jobId, workerId],
  });
  const row = rows[0];
  if (!row) return null;
  if (row.id === null) return row.elsewhere ? "elsewhere" : null;
  return { job: { id: row.id, name: row.name, data: row.data }, claimed: row.r ? startedRun(row.r) : undefined };
}
