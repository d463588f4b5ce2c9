// One statement per batch while a queue is backed up: the dispatcher's next take and the outcomes that just freed its
// slots go to the database together, in one call of the SQL function vigil_run_step and one commit, instead of four
// (pg-boss's fetch, the claim, the outcome, pg-boss's completion). In that call, in this order:
//   1. Complete: the jobs of the successes handed to it are completed with pg-boss's completion SET list (state
//      'completed', completed_on, output NULL as boss.complete without data leaves it), only while 'active'. A success's
//      job is completed whether or not step 3 records it: the outcome path completes it either way (finish-run.ts), and
//      a job's state matters only to pg-boss (the run's row is the truth).
//   2. Take: the handler's due runs (queued, not waiting, due on the database clock), oldest first, name their current
//      jobs by key (vigil_job_id = core/queue/job-id.ts jobIdFor(run, attempt + 1, wakes)), and so do the jobs an
//      operator asked for (trigger now, re-run), which pg-boss orders ahead of any backlog; of those jobs, the ones
//      pg-boss's fetch would take — same queue, not yet active, not blocked, start_after passed, in pg-boss's order
//      (priority, created_on, id), FOR UPDATE SKIP LOCKED — are moved to 'active' with pg-boss's own SET list, as the
//      take-by-key of a notified job does (worker/claim-notified-job.ts). Only 'standard' queues (all run queues are).
//   3. Locks: the scope of the taken runs and of the outcomes' runs together, in the engine's order
//      (locks/under-run-locks.ts runLocksSql) — one ordered pass.
//   4. Outcomes: vigil_finish_free_runs records the successes nothing waits on.
//   5. Claim: vigil_claim_free_runs claims the taken runs, seeing step 4's writes (its own statement).
// Whatever the call does not decide goes down today's paths: an outcome it did not record to the outcome batcher
// (finishRuns under locks; its job already completed), a taken job whose run it did not claim to claimRuns under
// locks, and fewer jobs than asked — a due job the key lookup did not name (a retry, a rate-limit wake, another pool's
// run) — to boss.fetch, which stays the backstop (worker/dispatcher.ts). worker/pg-boss-drift.db.test.ts compares the
// step's take and completion with boss.fetch's and boss.complete's moves of a job, column by column.
// Lock order, and why the completion comes first: a locking read with SKIP LOCKED (step 2, and pg-boss's own fetch)
// that finds a job's newer version already taken keeps its lock on that row until it commits, though it does not
// take the job. Had the completion come after, two steps could each hold such a lock on the other's just-finished
// job and wait for it (seen as deadlocks in racing-dispatchers.db.test.ts). First, the completion waits holding
// nothing but the jobs it completes, which nobody else waits for; after it, nothing waits for a job row: the take
// skips locked rows, the schedules and groups are locked in the engine's order, the runs with SKIP LOCKED, and the
// read models' rows in key order (the triggers).
import type { Queryable } from "../../db/pool";
import { OPERATOR_PRIORITY } from "../../queue/send-run-job";
import { BOSS_COMPLETE_SET_SQL, BOSS_DUE_JOB_SQL, BOSS_SCHEMA, BOSS_TAKE_SET_SQL } from "../../queue/boss-job-moves";
import { startedRun, type ClaimResult, type StartedRunRow } from "../claim/claim-run";
import { freeFinishCall, freeFinishResults, mayFinishFree } from "../finish/finish-free-runs";
import type { FinishRequest, FinishResult } from "../finish/finish-run";
import { runLocksSql } from "../locks/under-run-locks";

/** How many of the oldest due runs the key lookup names per job asked for (the rest of a window the others took). */
const WINDOW_PER_JOB = 4;

/** The body of vigil_run_step (its newest migration; run-step.db.test.ts keeps them equal). */
export const RUN_STEP_FUNCTION_BODY = `
DECLARE
  v_taken jsonb := '[]';
  v_ids uuid[];
BEGIN
  UPDATE ${BOSS_SCHEMA}.job SET ${BOSS_COMPLETE_SET_SQL}
    FROM jsonb_to_recordset(p_finish->'jobs') AS x(queue text, id uuid)
   WHERE job.name = x.queue AND job.id = x.id AND job.state = 'active';
  IF p_take > 0 THEN
    WITH cand AS MATERIALIZED (
      -- The window first (the due-order index, no sort), the key of each run in it after.
      (SELECT vigil_job_id(w.id, w.attempt + 1, w.wakes) AS id
         FROM (SELECT r.id, r.attempt, r.wakes FROM runs r
                WHERE r.state = 'queued' AND r.wait_reason IS NULL AND r.due_at <= clock_timestamp() AND r.handler = p_handler
                ORDER BY r.due_at
                LIMIT p_take * ${WINDOW_PER_JOB}) w)
      UNION
      -- Jobs an operator asked for (trigger now, re-run: OPERATOR_PRIORITY) go ahead of the backlog, as in pg-boss's
      -- order: the head of pg-boss's own fetch index, where they sit above every due-order priority.
      (SELECT j.id FROM ${BOSS_SCHEMA}.job j
        WHERE j.name = p_queue AND ${BOSS_DUE_JOB_SQL} AND j.priority >= ${OPERATOR_PRIORITY}
        ORDER BY j.priority DESC, j.created_on
        LIMIT p_take)
    ),
    n AS (
      SELECT j.id FROM ${BOSS_SCHEMA}.job j
       WHERE j.name = p_queue AND j.id = ANY(ARRAY(SELECT cand.id FROM cand))
         AND ${BOSS_DUE_JOB_SQL}
       ORDER BY j.priority DESC, j.created_on, j.id
       LIMIT p_take
         FOR UPDATE OF j SKIP LOCKED
    ),
    u AS (
      UPDATE ${BOSS_SCHEMA}.job j SET ${BOSS_TAKE_SET_SQL}
        FROM n
       WHERE j.name = p_queue AND j.id = n.id
      RETURNING j.id, j.name, j.data
    )
    SELECT coalesce(jsonb_agg(jsonb_build_object('id', u.id, 'name', u.name, 'data', u.data)), '[]'::jsonb)
      INTO v_taken
      FROM u;
  END IF;
  v_ids := p_finish_ids || ARRAY(SELECT (t->'data'->>'runId')::uuid FROM jsonb_array_elements(v_taken) t WHERE t->'data' ? 'runId');
${runLocksSql("v_ids")}
  RETURN QUERY SELECT jsonb_build_object('finished', r->'id') FROM vigil_finish_free_runs(p_finish_ids, p_finish) AS r;
  RETURN QUERY
    WITH t AS (SELECT t, t->'data'->>'runId' AS run, t->'data'->>'attempt' AS attempt
                 FROM jsonb_array_elements(v_taken) t),
         q AS (SELECT t.run::uuid AS run, t.attempt::int AS attempt, t.t->>'id' AS job_id FROM t
                WHERE t.run IS NOT NULL AND t.attempt IS NOT NULL),
         c AS (SELECT r FROM vigil_claim_free_runs(
                 ARRAY(SELECT q.run FROM q ORDER BY q.run),
                 jsonb_build_object('worker', p_worker,
                                    'reqs', (SELECT coalesce(jsonb_agg(jsonb_build_object('id', q.run, 'attempt', q.attempt, 'job_id', q.job_id)
                                                                        ORDER BY q.run), '[]'::jsonb) FROM q))) AS r
                WHERE EXISTS (SELECT 1 FROM q))
    SELECT jsonb_build_object('job', t.t, 'run', c.r) FROM t LEFT JOIN c ON c.r->>'id' = t.run;
END
`;

export interface StepRequest {
  /** The pg-boss queue to take from (core/queue/boss.ts runQueueFor) and the handler whose runs it holds. */
  queue: string;
  handler: string;
  /** How many jobs to take (0: only record the outcomes). */
  take: number;
  workerId: string;
  /** Outcomes to record; those the one-statement path may not record come back undefined, untouched. */
  finishes: readonly FinishRequest[];
  /** The queue of a finished attempt's job (the job is completed in the same call); undefined: left to the caller. */
  queueOfJob: (jobId: string) => string | undefined;
}

export interface TakenJob {
  job: { id: string; name: string; data: unknown };
  /** The started run; undefined when the one-statement claim left it to the claim under full locks. */
  claimed: ClaimResult | undefined;
}

export interface StepResult {
  taken: TakenJob[];
  /** In `finishes` order: the outcome recorded, or undefined (left to the outcome path). */
  finished: (FinishResult | undefined)[];
  /** The jobs of the handed successes, completed in the call (recorded or not): nothing is left to settle for them. */
  completedJobs: ReadonlySet<string>;
}

/** One call of vigil_run_step on `db` (the hot-path pool: each call its own transaction). */
export async function runStep(db: Queryable, req: StepRequest): Promise<StepResult> {
  const call = freeFinishCall(req.finishes);
  const finishIds = call?.runIds ?? [];
  // The jobs of the successes it may record, completed in the call whether or not it records them (see 1. above).
  const jobs: { queue: string; id: string }[] = [];
  for (const f of req.finishes) {
    const queue = f.jobId && mayFinishFree(f) ? req.queueOfJob(f.jobId) : undefined;
    if (f.jobId && queue) jobs.push({ queue, id: f.jobId });
  }
  const { rows } = await db.query<{ r: { finished?: string; job?: TakenJob["job"]; run?: StartedRunRow | null } }>({
    name: "vigil-run-step",
    text: `SELECT r FROM vigil_run_step($1::text, $2::text, $3::int, $4::text, $5::uuid[], $6::jsonb) AS r`,
    values: [req.queue, req.handler, req.take, req.workerId, finishIds, JSON.stringify({ reqs: call?.args.reqs ?? [], jobs })],
  });
  const recorded = new Set<string>();
  const completed = new Set(jobs.map((j) => j.id));
  const taken: TakenJob[] = [];
  for (const { r } of rows) {
    if (r.finished !== undefined) recorded.add(r.finished);
    else if (r.job) taken.push({ job: r.job, claimed: r.run ? startedRun(r.run) : undefined });
  }
  const finished = freeFinishResults(req.finishes, recorded).map((f) =>
    f?.settle && completed.has(f.settle.jobId) ? { ...f, settle: null } : f,
  );
  return { taken, finished, completedJobs: completed };
}
