-- The default path's claim (issue 16, fan-out drain): vigil_claim_free_runs (20261204500000) looks each run's schedule up
-- by key (a LATERAL subquery with OFFSET 0, as it already did for the run) instead of joining schedules. Under the
-- function's generic plan (plan_cache_mode = force_generic_plan) the join was a hash join that read and hashed every
-- schedule on every call: ~1 ms a call at 1,000 schedules, ×10 at 10,000, for batches of 4–8 runs. Nothing it decides
-- or writes changes. The body is the TypeScript constant verbatim (core/runs/claim/claim-free-runs.db.test.ts checks it).

CREATE OR REPLACE FUNCTION vigil_claim_free_runs(p_run_ids uuid[], p_args jsonb) RETURNS SETOF jsonb
LANGUAGE plpgsql VOLATILE SET plan_cache_mode = force_generic_plan AS $body$
BEGIN
  PERFORM 1 FROM schedules s
    WHERE s.id = ANY(ARRAY(SELECT r.schedule_id FROM runs r WHERE r.id = ANY(p_run_ids))) AND s.overlap_policy <> 'allow'
    ORDER BY s.id
    FOR NO KEY UPDATE OF s;
  PERFORM 1 FROM concurrency_groups g
    WHERE g.name = ANY(ARRAY(SELECT r.concurrency_group FROM runs r WHERE r.id = ANY(p_run_ids)))
    ORDER BY g.name
    FOR UPDATE OF g;
  RETURN QUERY WITH t AS (SELECT clock_timestamp() AS now),
     q AS (SELECT * FROM jsonb_to_recordset(p_args->'reqs') AS q(id uuid, attempt int, job_id text)),
     l AS (
       -- One primary-key lookup per delivery (as in claimPlainRuns: the OFFSET keeps the plan on the key).
       SELECT r.id, r.schedule_id, r.concurrency_group, r.due_at, r.state, q.job_id,
              CASE WHEN r.state = 'queued' AND s.overlap_policy <> 'allow' THEN r.schedule_id END AS exclusive_on
         FROM q, t, LATERAL (SELECT * FROM runs WHERE runs.id = q.id OFFSET 0 FOR NO KEY UPDATE SKIP LOCKED) r,
              -- The schedule by key too: joined, the generic plan hashed every schedule on each call (×N at a fan-out of N).
              LATERAL (SELECT * FROM schedules WHERE schedules.id = r.schedule_id OFFSET 0) s
        WHERE q.attempt = r.attempt + 1 AND s.deleted_at IS NULL
          AND NOT (s.paused_at IS NOT NULL AND (s.paused_until IS NULL OR s.paused_until > t.now))
          AND ((r.state = 'queued' AND NOT (t.now > r.due_at + make_interval(secs => s.starting_deadline_seconds)))
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
       SELECT o.id, o.job_id FROM o LEFT JOIN concurrency_groups g ON g.name = o.concurrency_group
        WHERE o.concurrency_group IS NULL OR g.name IS NULL OR (
  (SELECT count(*) FROM runs x WHERE x.concurrency_group = o.concurrency_group AND x.state = 'running') + o.grank <= g.max_running
  AND NOT EXISTS (SELECT 1 FROM runs w
                   WHERE w.concurrency_group = o.concurrency_group AND w.state = 'queued' AND w.wait_reason = 'concurrency'
                     AND w.id <> o.id AND (w.due_at, w.id) < (o.due_at, o.id))
  AND g.max_starts IS NULL)
     ),
     u AS (
       UPDATE runs r SET state = 'running', attempt = r.attempt + 1, wait_reason = NULL, worker_id = p_args->>'worker',
              started_at = coalesce(r.started_at, t.now), heartbeat_at = t.now, next_attempt_at = NULL,
              lateness_ms = coalesce(r.lateness_ms, round(extract(epoch FROM t.now - r.planned_at) * 1000)::int), updated_at = t.now
         FROM c, t
        WHERE r.id = c.id
        RETURNING r.id, r.schedule_id, r.idempotency_key, r.attempt, r.handler, r.payload, r.timeout_seconds,
                  r.grace_seconds, r.max_attempts, r.lateness_ms, c.job_id, t.now
     ),
     a AS (INSERT INTO attempts (run_id, number, state, worker_id, started_at, heartbeat_at)
   SELECT id, attempt, 'running', p_args->>'worker', now, now FROM u),
     e AS (INSERT INTO run_events (run_id, type, attempt, worker_id, message, data) SELECT id, 'started', attempt, p_args->>'worker',
          CASE WHEN attempt = 1 THEN 'started ' || lateness_ms || ' ms after planned'
               ELSE 'attempt ' || attempt || ' of ' || max_attempts || ' started' END,
          jsonb_build_object('jobId', job_id, 'latenessMs', lateness_ms)
     FROM u)
     SELECT to_jsonb(u) FROM u;
END
$body$;
