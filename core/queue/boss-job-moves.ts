// pg-boss's own moves of a job, as SQL fragments, for the two places where Vigil repeats them inside its statements
// (worker/claim-notified-job.ts, core/runs/step/run-step.ts); worker/pg-boss-drift.db.test.ts compares both with the
// installed pg-boss's fetch and completion column by column.

/** pg-boss's schema (core/queue/boss.ts starts it with the default). */
export const BOSS_SCHEMA = "pgboss";

/** pg-boss's fetch conditions for a 'standard' queue (plans.fetchNextJob), on job alias `j`: waiting, not blocked, due. */
export const BOSS_DUE_JOB_SQL = `j.state < 'active' AND NOT j.blocked AND j.start_after <= ${BOSS_SCHEMA}.job_now()`;

/** The SET list of pg-boss's fetch: the job becomes active, its take counted as a retry when it was taken before. */
export const BOSS_TAKE_SET_SQL = `state = 'active', started_on = ${BOSS_SCHEMA}.job_now(), heartbeat_on = ${BOSS_SCHEMA}.job_now(),
        retry_count = CASE WHEN started_on IS NOT NULL THEN retry_count + 1 ELSE retry_count END`;

/** The SET list of boss.complete without data, for a job still 'active'. */
export const BOSS_COMPLETE_SET_SQL = `completed_on = ${BOSS_SCHEMA}.job_now(), state = 'completed', output = NULL`;
