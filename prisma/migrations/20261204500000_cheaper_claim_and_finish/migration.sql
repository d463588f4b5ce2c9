-- Cheaper claim and outcome statements on the default fan-out path (issue 16: PostgreSQL CPU per run).
-- vigil_claim_free_runs and vigil_finish_free_runs (20261202600000) with their plans kept: their lock statements
-- now look rows up as `= ANY(ARRAY(subquery))` (a plan of primary-key lookups whatever the batch size), and both
-- functions run with plan_cache_mode = force_generic_plan, so neither those statements nor the decision is planned
-- again on every call (core/runs/claim/under-run-locks.ts explains it). The bodies are the TypeScript constants
-- verbatim, as core/runs/claim/claim-free-runs.db.test.ts checks. Nothing they decide or write changes.

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
         FROM q, t, LATERAL (SELECT * FROM runs WHERE runs.id = q.id OFFSET 0 FOR NO KEY UPDATE SKIP LOCKED) r
         JOIN schedules s ON s.id = r.schedule_id
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

CREATE OR REPLACE FUNCTION vigil_finish_free_runs(p_run_ids uuid[], p_args jsonb) RETURNS SETOF jsonb
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
     f AS (SELECT * FROM jsonb_to_recordset(p_args->'reqs')
                  AS f(id uuid, attempt int, worker_id text, duration_ms int, records int, result jsonb, ended_ago_ms float8, message text, data jsonb)),
     c AS (
       SELECT f.*
         FROM f, LATERAL (SELECT * FROM runs WHERE runs.id = f.id OFFSET 0 FOR NO KEY UPDATE SKIP LOCKED) r
         JOIN schedules s ON s.id = r.schedule_id
        WHERE r.state = 'running' AND r.attempt = f.attempt AND r.worker_id = f.worker_id
          AND (s.expect_records_min IS NULL OR coalesce(f.records, 0) >= s.expect_records_min)
          AND (s.overlap_policy = 'allow'
               OR NOT EXISTS (SELECT 1 FROM runs w WHERE w.schedule_id = r.schedule_id AND w.state = 'queued' AND w.wait_reason = 'overlap'))
          AND (r.concurrency_group IS NULL
               OR NOT EXISTS (SELECT 1 FROM runs w
                               WHERE w.concurrency_group = r.concurrency_group AND w.state = 'queued' AND w.wait_reason = 'concurrency'))
     ),
     ua AS (
       UPDATE attempts a SET state = 'succeeded',
              finished_at = greatest(a.started_at, t.now - make_interval(secs => greatest(c.ended_ago_ms, 0) / 1000.0)),
              duration_ms = c.duration_ms, records = c.records, error = NULL
         FROM c, t
        WHERE a.run_id = c.id AND a.number = c.attempt
        RETURNING a.run_id, a.finished_at
     ),
     ur AS (
       UPDATE runs r SET state = 'succeeded', finished_at = ua.finished_at, duration_ms = c.duration_ms, records = c.records,
              result = coalesce(c.result, r.result), error = NULL, updated_at = t.now
         FROM c JOIN ua ON ua.run_id = c.id, t
        WHERE r.id = c.id
        RETURNING r.id
     ),
     e AS (
       INSERT INTO run_events (run_id, type, attempt, worker_id, message, data, at)
       SELECT c.id, 'finished', c.attempt, c.worker_id, c.message, c.data,
              greatest(t.now - make_interval(secs => greatest(0::float8, 0) / 1000.0),
                   (SELECT max(prev.at) FROM run_events prev
                     WHERE prev.run_id = c.id AND prev.worker_id = c.worker_id AND prev.attempt = c.attempt))
         FROM c JOIN ur ON ur.id = c.id, t
     )
     SELECT to_jsonb(ur) FROM ur;
END
$body$;

-- The runs statement trigger of 20261203800000: the console version and the per-schedule summaries unchanged; the
-- fleet models' upkeep (the same rows and deltas) in one statement instead of two, cheaper per call (it runs on every
-- claim and outcome batch, and in the fan-out profile the trigger was ~40% of their CPU, most of it per call):
--  - the changed (old, new) pairs are read from the transition tables once, not once per model;
--  - each pair's two signed rows come from a LATERAL UNION ALL of two one-row SELECTs: the LATERAL VALUES list it
--    replaces re-initialised its expressions for every pair, copying the runs row type's descriptor (with its
--    constraints and defaults) each time — a fifth of the trigger's CPU;
--  - the deltas are appended by INSERT … SELECT with the conditions of vigil_fleet_run_upsert and
--    vigil_fleet_attention_upsert (20261203900000, kept for the other triggers) inlined, not a PL/pgSQL call per row.
CREATE OR REPLACE FUNCTION vigil_runs_update_summaries() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM changed_new n JOIN changed_old o ON o.id = n.id
              WHERE (o.state, o.started_at, o.finished_at, o.attempt, o.wait_reason, o.cancel_requested_at)
                    IS DISTINCT FROM (n.state, n.started_at, n.finished_at, n.attempt, n.wait_reason, n.cancel_requested_at)) THEN
    PERFORM nextval('vigil_console_version');
  END IF;

  WITH ch AS (
    -- The transitions that can change a count or the last run: an on-time planned → queued → running cannot.
    SELECT n.id, n.schedule_id, n.planned_at, n.finished_at, n.state AS new_state, o.state AS old_state,
           n.lateness_ms AS new_lateness, o.lateness_ms AS old_lateness
      FROM changed_new n JOIN changed_old o ON o.id = n.id
     WHERE (o.state IS DISTINCT FROM n.state OR o.lateness_ms IS DISTINCT FROM n.lateness_ms)
       AND (n.state NOT IN ('planned', 'queued', 'running', 'retrying')
            OR o.state IN ('missed', 'hollow', 'failed', 'timed_out', 'zombie')
            OR n.lateness_ms > 1000 OR o.lateness_ms > 1000)
  ),
  cls AS (
    SELECT ch.schedule_id, date_trunc('hour', ch.planned_at) AS hour, oc.late AS ol, oc.missed AS om, oc.hollow AS oh, oc.failed AS of_,
           nc.late AS nl, nc.missed AS nm, nc.hollow AS nh, nc.failed AS nf
      FROM ch
     CROSS JOIN LATERAL (SELECT CASE WHEN greatest(ch.old_lateness, ch.new_lateness) > 1000
                                     THEN (SELECT s.start_jitter_ms FROM schedules s WHERE s.id = ch.schedule_id) ELSE 0 END AS jitter) j
     CROSS JOIN LATERAL vigil_run_outcome_classes(ch.old_state, ch.old_lateness, j.jitter) oc
     CROSS JOIN LATERAL vigil_run_outcome_classes(ch.new_state, ch.new_lateness, j.jitter) nc
  ),
  ins AS (
    INSERT INTO schedule_hourly_outcomes AS h (schedule_id, hour, late, missed, hollow, failed)
    SELECT schedule_id, hour, sum(nl - ol), sum(nm - om), sum(nh - oh), sum(nf - of_)
      FROM cls
     WHERE (ol, om, oh, of_) IS DISTINCT FROM (nl, nm, nh, nf)
     GROUP BY schedule_id, hour
    ON CONFLICT (schedule_id, hour) DO UPDATE
      SET late = h.late + excluded.late, missed = h.missed + excluded.missed, hollow = h.hollow + excluded.hollow, failed = h.failed + excluded.failed
    RETURNING h.schedule_id, h.hour, (xmax = 0) AS created
  ),
  -- A schedule's first trouble in a new hour: drop its hours older than the longest window that reads them.
  cleaned AS (
    DELETE FROM schedule_hourly_outcomes h USING ins
     WHERE ins.created AND h.schedule_id = ins.schedule_id AND h.hour < ins.hour - interval '8 days'
  )
  INSERT INTO schedule_last_runs AS l (schedule_id, run_id, state, planned_at, finished_at, lateness_ms)
  SELECT DISTINCT ON (ch.schedule_id) ch.schedule_id, ch.id, ch.new_state, ch.planned_at, ch.finished_at, ch.new_lateness
    FROM ch
   WHERE ch.new_state IN ('succeeded', 'failed', 'timed_out', 'cancelled', 'skipped_overlap', 'missed', 'paused', 'hollow', 'zombie')
     AND ch.new_state IS DISTINCT FROM ch.old_state AND ch.planned_at <= clock_timestamp()
   ORDER BY ch.schedule_id, ch.planned_at DESC
  ON CONFLICT (schedule_id) DO UPDATE
    SET run_id = excluded.run_id, state = excluded.state, planned_at = excluded.planned_at, finished_at = excluded.finished_at,
        lateness_ms = excluded.lateness_ms
    WHERE l.planned_at <= excluded.planned_at;

  -- The fleet models (20261203100000), per statement: each changed run's old contribution taken out and its new one
  -- added, summed per (minute, shard) so a batch that finishes many runs appends a few rows; contributions that
  -- cancel (nothing counted changed) are dropped. Only the updates the fleet models can see are read (the row
  -- trigger's WHEN of 20261203100000, unchanged): an on-time planned → queued → running is not. The changed pairs
  -- are read straight from the transition tables in each of the two statements (a temporary table per transaction
  -- cost catalog writes, and a join to schedules without statistics scanned all of them: 24 ms a call at 10,000).
  -- One statement since 20261204500000: the changed pairs are read from the transition tables once (d), and both
  -- fleet models' deltas are appended here with the conditions of vigil_fleet_run_upsert / vigil_fleet_attention_upsert
  -- (20261203900000) inlined, instead of two statements each pairing the rows again and a PL/pgSQL call per row.
  WITH d AS MATERIALIZED (
    SELECT s.sign, s.r
      FROM changed_new n JOIN changed_old o ON o.id = n.id
     CROSS JOIN LATERAL (SELECT -1 AS sign, o::runs AS r UNION ALL SELECT 1, n::runs) s
     WHERE vigil_fleet_sees(o, n)
  ),
  x AS (
    SELECT g.minute, g.shard, vigil_array_sum(vigil_fleet_counts(g.state, g.n, g.retries, g.lat_k, g.gap_k, g.dur_k)) AS counts,
           vigil_array_sum(ARRAY[g.lat, g.gap, g.dur]) AS sums
      FROM (SELECT date_trunc('minute', (d.r).planned_at) AS minute, vigil_fleet_shard((d.r).schedule_id) AS shard, (d.r).state,
                   v.lat_k, v.gap_k, v.dur_k, sum(d.sign)::int AS n, sum(d.sign * greatest((d.r).attempt - 1, 0))::int AS retries,
                   coalesce(sum(d.sign * v.lat), 0) AS lat, coalesce(sum(d.sign * v.gap), 0) AS gap, coalesce(sum(d.sign * v.dur), 0) AS dur
              FROM d
             CROSS JOIN LATERAL vigil_fleet_run_values((d.r).kind, (d.r).reruns, (d.r).lateness_ms, (d.r).planned_at,
                                                       (d.r).finished_at, (d.r).duration_ms) v
             WHERE (d.r).state NOT IN ('planned', 'queued', 'running', 'retrying')
             GROUP BY 1, 2, 3, 4, 5, 6
            HAVING sum(d.sign) <> 0 OR sum(d.sign * greatest((d.r).attempt - 1, 0)) <> 0
                OR coalesce(sum(d.sign * v.lat), 0) <> 0 OR coalesce(sum(d.sign * v.gap), 0) <> 0
                OR coalesce(sum(d.sign * v.dur), 0) <> 0) g
     GROUP BY 1, 2
  ),
  a AS (
    SELECT u.minute, u.shard, sum(u.late)::int AS late, sum(u.missed)::int AS missed, sum(u.hollow)::int AS hollow,
           sum(u.zombie)::int AS zombie, sum(u.failed)::int AS failed
      FROM (SELECT date_trunc('minute', (d.r).started_at) AS minute, vigil_fleet_shard((d.r).schedule_id) AS shard, d.sign AS late,
                   0 AS missed, 0 AS hollow, 0 AS zombie, 0 AS failed
              FROM d
             WHERE (d.r).started_at IS NOT NULL
               -- the schedule's jitter looked up by key, and only for a run started more than 1 s late
               AND CASE WHEN (d.r).lateness_ms > 1000
                        THEN (d.r).lateness_ms > coalesce((SELECT s.start_jitter_ms FROM schedules s WHERE s.id = (d.r).schedule_id), 0) + 1000
                        ELSE false END
            UNION ALL
            SELECT date_trunc('minute', (d.r).updated_at), vigil_fleet_shard((d.r).schedule_id), 0, d.sign * ((d.r).state = 'missed')::int,
                   d.sign * ((d.r).state = 'hollow')::int, d.sign * ((d.r).state = 'zombie')::int,
                   d.sign * ((d.r).state IN ('failed', 'timed_out'))::int
              FROM d
             WHERE (d.r).state IN ('missed', 'hollow', 'zombie', 'failed', 'timed_out')) u
     GROUP BY 1, 2
    HAVING sum(u.late) <> 0 OR sum(u.missed) <> 0 OR sum(u.hollow) <> 0 OR sum(u.zombie) <> 0 OR sum(u.failed) <> 0
  ),
  -- vigil_fleet_run_upsert's condition: minutes older than the kept range are never read.
  ir AS (
    INSERT INTO fleet_run_minute_deltas (minute, shard, c01, c02, c03, c04, c05, c06, c07, c08, c09, c10, c11, c12, c13, c14, c15, c16, c17, c18, c19, c20, c21, c22, c23, c24, c25, c26, c27, c28, c29, c30, c31, c32, c33, c34, c35, c36, c37, c38, c39, c40, c41, c42, c43, c44, c45, c46, c47, c48, c49, c50, c51, c52, c53, c54, c55, c56, c57, s1, s2, s3)
    SELECT x.minute, x.shard, x.counts[1], x.counts[2], x.counts[3], x.counts[4], x.counts[5], x.counts[6], x.counts[7], x.counts[8], x.counts[9], x.counts[10], x.counts[11], x.counts[12], x.counts[13], x.counts[14], x.counts[15], x.counts[16], x.counts[17], x.counts[18], x.counts[19], x.counts[20], x.counts[21], x.counts[22], x.counts[23], x.counts[24], x.counts[25], x.counts[26], x.counts[27], x.counts[28], x.counts[29], x.counts[30], x.counts[31], x.counts[32], x.counts[33], x.counts[34], x.counts[35], x.counts[36], x.counts[37], x.counts[38], x.counts[39], x.counts[40], x.counts[41], x.counts[42], x.counts[43], x.counts[44], x.counts[45], x.counts[46], x.counts[47], x.counts[48], x.counts[49], x.counts[50], x.counts[51], x.counts[52], x.counts[53], x.counts[54], x.counts[55], x.counts[56], x.counts[57], x.sums[1], x.sums[2], x.sums[3]
      FROM x
     WHERE (x.minute < clock_timestamp() - interval '25 hours') IS NOT TRUE
  )
  -- vigil_fleet_attention_upsert's condition.
  INSERT INTO fleet_attention_minute_deltas (minute, shard, late, missed, hollow, zombie, failed)
  SELECT a.minute, a.shard, a.late, a.missed, a.hollow, a.zombie, a.failed
    FROM a
   WHERE (a.minute IS NULL OR a.minute < clock_timestamp() - interval '25 hours' OR (a.late, a.missed, a.hollow, a.zombie, a.failed) = (0, 0, 0, 0, 0))
         IS NOT TRUE;
  RETURN NULL;
END $$;
