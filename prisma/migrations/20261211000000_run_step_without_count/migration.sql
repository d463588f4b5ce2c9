-- The step no longer counts the runs its key lookup named: nothing used the count (core/runs/step/run-step.ts).
CREATE OR REPLACE FUNCTION vigil_run_step(p_queue text, p_handler text, p_take int, p_worker text, p_finish_ids uuid[], p_finish jsonb)
  RETURNS SETOF jsonb
  LANGUAGE plpgsql
  SET plan_cache_mode TO 'force_generic_plan'
AS $fn$
DECLARE
  v_taken jsonb := '[]';
  v_ids uuid[];
BEGIN
  UPDATE pgboss.job SET completed_on = pgboss.job_now(), state = 'completed', output = NULL
    FROM jsonb_to_recordset(p_finish->'jobs') AS x(queue text, id uuid)
   WHERE job.name = x.queue AND job.id = x.id AND job.state = 'active';
  IF p_take > 0 THEN
    WITH cand AS MATERIALIZED (
      -- The window first (the due-order index, no sort), the key of each run in it after.
      (SELECT vigil_job_id(w.id, w.attempt + 1, w.wakes) AS id
         FROM (SELECT r.id, r.attempt, r.wakes FROM runs r
                WHERE r.state = 'queued' AND r.wait_reason IS NULL AND r.due_at <= clock_timestamp() AND r.handler = p_handler
                ORDER BY r.due_at
                LIMIT p_take * 4) w)
      UNION
      -- Jobs an operator asked for (trigger now, re-run: OPERATOR_PRIORITY) go ahead of the backlog, as in pg-boss's
      -- order: the head of pg-boss's own fetch index, where they sit above every due-order priority.
      (SELECT j.id FROM pgboss.job j
        WHERE j.name = p_queue AND j.state < 'active' AND NOT j.blocked AND j.start_after <= pgboss.job_now() AND j.priority >= 1
        ORDER BY j.priority DESC, j.created_on
        LIMIT p_take)
    ),
    n AS (
      SELECT j.id FROM pgboss.job j
       WHERE j.name = p_queue AND j.id = ANY(ARRAY(SELECT cand.id FROM cand))
         AND j.state < 'active' AND NOT j.blocked AND j.start_after <= pgboss.job_now()
       ORDER BY j.priority DESC, j.created_on, j.id
       LIMIT p_take
         FOR UPDATE OF j SKIP LOCKED
    ),
    u AS (
      UPDATE pgboss.job j SET state = 'active', started_on = pgboss.job_now(), heartbeat_on = pgboss.job_now(),
        retry_count = CASE WHEN started_on IS NOT NULL THEN retry_count + 1 ELSE retry_count END
        FROM n
       WHERE j.name = p_queue AND j.id = n.id
      RETURNING j.id, j.name, j.data
    )
    SELECT coalesce(jsonb_agg(jsonb_build_object('id', u.id, 'name', u.name, 'data', u.data)), '[]'::jsonb)
      INTO v_taken
      FROM u;
  END IF;
  v_ids := p_finish_ids || ARRAY(SELECT (t->'data'->>'runId')::uuid FROM jsonb_array_elements(v_taken) t WHERE t->'data' ? 'runId');
  PERFORM 1 FROM schedules s
    WHERE s.id = ANY(ARRAY(SELECT r.schedule_id FROM runs r WHERE r.id = ANY(v_ids))) AND s.overlap_policy <> 'allow'
    ORDER BY s.id
    FOR NO KEY UPDATE OF s;
  PERFORM 1 FROM concurrency_groups g
    WHERE g.name = ANY(ARRAY(SELECT r.concurrency_group FROM runs r WHERE r.id = ANY(v_ids)))
    ORDER BY g.name
    FOR UPDATE OF g;
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
$fn$;
