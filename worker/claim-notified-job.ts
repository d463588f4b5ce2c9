// The fast start of a run whose job a NOTIFY names (issue 16, latency of one run): a manual trigger's wake-up carries
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
import type { Queryable } from "../core/db/pool";
import { startedRun, type ClaimResult, type StartedRunRow } from "../core/runs/claim/claim-run";

/** pg-boss's schema (core/queue/boss.ts starts it with the default). */
const BOSS_SCHEMA = "pgboss";

const FETCH_AND_CLAIM_SQL = `
  WITH n AS (
    SELECT j.id FROM ${BOSS_SCHEMA}.job j
     WHERE j.name = $1 AND j.id = $2::uuid AND j.state < 'active' AND NOT j.blocked AND j.start_after <= ${BOSS_SCHEMA}.job_now()
       FOR UPDATE OF j SKIP LOCKED
  ),
  j AS (
    UPDATE ${BOSS_SCHEMA}.job j SET
      state = 'active',
      started_on = ${BOSS_SCHEMA}.job_now(),
      heartbeat_on = ${BOSS_SCHEMA}.job_now(),
      retry_count = CASE WHEN started_on IS NOT NULL THEN retry_count + 1 ELSE retry_count END
      FROM n
     WHERE j.name = $1 AND j.id = n.id
    RETURNING j.id, j.name, j.data
  )
  SELECT j.id, j.name, j.data, c.r
    FROM j
    LEFT JOIN LATERAL (
      SELECT r FROM vigil_claim_free_runs(
        ARRAY[(j.data->>'runId')::uuid],
        jsonb_build_object('worker', $3::text,
                           'reqs', jsonb_build_array(jsonb_build_object('id', j.data->>'runId', 'attempt', (j.data->>'attempt')::int,
                                                                        'job_id', j.id::text)))) AS r
       WHERE j.data ? 'runId' AND j.data ? 'attempt'
    ) c ON true`;

export interface NotifiedJob {
  job: { id: string; name: string; data: unknown };
  /** The started run; undefined when the one-statement claim left the run to the claim under full locks. */
  claimed: ClaimResult | undefined;
}

/** Takes job `jobId` of `queue` and claims its run; null when the job is not there to take (taken, not yet due, gone). */
export async function claimNotifiedJob(db: Queryable, queue: string, jobId: string, workerId: string): Promise<NotifiedJob | null> {
  const { rows } = await db.query<{ id: string; name: string; data: unknown; r: StartedRunRow | null }>({
    name: "vigil-claim-notified-job",
    text: FETCH_AND_CLAIM_SQL,
    values: [queue, jobId, workerId],
  });
  const row = rows[0];
  if (!row) return null;
  return { job: { id: row.id, name: row.name, data: row.data }, claimed: row.r ? startedRun(row.r) : undefined };
}
