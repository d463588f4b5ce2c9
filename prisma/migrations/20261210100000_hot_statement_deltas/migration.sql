-- Read-model deltas appended by the hot statements. The one-round-trip claim (vigil_claim_free_runs) and outcome
-- (vigil_finish_free_runs) append the read models' changes their own UPDATE of `runs` makes, in the same statement
-- (core/runs/read-model-deltas.ts): a start more than 1 s (and the schedule's jitter) late adds to its hour's late
-- count, its schedule's trouble deltas and the fleet's late starts; a success upserts its schedule's last run and
-- appends the fleet's run counts; each bumps the console version. Read models stay exact at commit: the changes
-- are written in the transaction that changes the runs, with the triggers' formulas for those two transitions.
-- The statement-level runs UPDATE triggers no longer recompute them: both functions turn vigil.hot_deltas 'on' for
-- their statement (set_config, transaction-local: put back when they return, undone with the savepoint or transaction
-- of a call that fails; not a SET clause, which only a superuser may give a custom setting) and the two trigger
-- functions return at once while it is on. The functions' decisions, locks and results are unchanged; their bodies
-- are the TypeScript constants verbatim (core/runs/claim/claim-free-runs.db.test.ts checks them), and the trigger
-- functions are 20261206200002's and 20261205200001's with that first test added.

CREATE OR REPLACE FUNCTION vigil_claim_free_runs(p_run_ids uuid[], p_args jsonb) RETURNS SETOF jsonb
LANGUAGE plpgsql VOLATILE SET plan_cache_mode = force_generic_plan AS $body$
DECLARE
  v_setting_was text := current_setting('vigil.hot_deltas', true);
BEGIN
  PERFORM 1 FROM schedules s
    WHERE s.id = ANY(ARRAY(SELECT r.schedule_id FROM runs r WHERE r.id = ANY(p_run_ids))) AND s.overlap_policy <> 'allow'
    ORDER BY s.id
    FOR NO KEY UPDATE OF s;
  PERFORM 1 FROM concurrency_groups g
    WHERE g.name = ANY(ARRAY(SELECT r.concurrency_group FROM runs r WHERE r.id = ANY(p_run_ids)))
    ORDER BY g.name
    FOR UPDATE OF g;
  PERFORM set_config('vigil.hot_deltas', 'on', true);
  RETURN QUERY WITH t AS (SELECT clock_timestamp() AS now),
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
       SELECT o.id, o.job_id, o.was_lateness_ms, o.was_started_at, o.start_jitter_ms
         FROM o LEFT JOIN concurrency_groups g ON g.name = o.concurrency_group
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
                  r.grace_seconds, r.max_attempts, r.lateness_ms, c.job_id, t.now,
                  r.planned_at, r.kind, r.reruns, r.started_at, c.was_lateness_ms, c.was_started_at, c.start_jitter_ms
     ),
     a AS (INSERT INTO attempts (run_id, number, state, worker_id, started_at, heartbeat_at)
   SELECT id, attempt, 'running', p_args->>'worker', now, now FROM u),
     e AS (INSERT INTO run_events (run_id, type, attempt, worker_id, message, data) SELECT id, 'started', attempt, p_args->>'worker',
          CASE WHEN attempt = 1 THEN 'started ' || lateness_ms || ' ms after planned'
               ELSE 'attempt ' || attempt || ' of ' || max_attempts || ' started' END,
          jsonb_build_object('jobId', job_id, 'latenessMs', lateness_ms)
     FROM u),
     sd AS (
       -- Each start's late classes before and after (lateness.ts's rule: more than 1 s and the schedule's jitter late).
       SELECT u.schedule_id, u.planned_at, u.kind, u.reruns, u.lateness_ms, u.was_lateness_ms, u.started_at, u.was_started_at,
              vigil_fleet_shard(u.schedule_id) AS shard,
              coalesce(u.was_lateness_ms > u.start_jitter_ms + 1000, false) AS was_late,
              coalesce(u.lateness_ms > u.start_jitter_ms + 1000, false) AS late
         FROM u
        WHERE u.lateness_ms > 1000 OR u.was_lateness_ms > 1000
     ),
     sh AS (
       INSERT INTO schedule_hourly_outcomes AS h (schedule_id, hour, late, missed, hollow, failed)
       SELECT sd.schedule_id, date_trunc('hour', sd.planned_at), sum(sd.late::int - sd.was_late::int), 0, 0, 0
         FROM sd
        WHERE sd.late <> sd.was_late
        GROUP BY 1, 2
        ORDER BY 1, 2
       ON CONFLICT (schedule_id, hour) DO UPDATE SET late = h.late + excluded.late
       RETURNING h.schedule_id, h.hour, (xmax = 0) AS created
     ),
     shd AS (
       -- As the trigger does: a schedule's first trouble in a new hour drops its hours older than the longest window.
       DELETE FROM schedule_hourly_outcomes h USING sh
        WHERE sh.created AND h.schedule_id = sh.schedule_id AND h.hour < sh.hour - interval '8 days'
     ),
     st AS (
       -- Trouble counters count a late start once, and not for backfills and re-runs.
       INSERT INTO schedule_trouble_deltas (schedule_id, missed, hollow, failed, late)
       SELECT sd.schedule_id, 0, 0, 0, count(*)
         FROM sd
        WHERE sd.late AND NOT sd.was_late AND sd.kind <> 'backfill' AND sd.reruns = 0
          AND sd.lateness_ms IS DISTINCT FROM sd.was_lateness_ms
        GROUP BY 1
     ),
     sa AS (
       -- The fleet's late starts by the minute they started: the start's old contribution out, its new one in.
       INSERT INTO fleet_attention_minute_deltas (minute, shard, late, missed, hollow, zombie, failed)
       SELECT a.minute, a.shard, sum(a.late)::int, 0, 0, 0, 0
         FROM (SELECT date_trunc('minute', sd.started_at) AS minute, sd.shard, 1 AS late FROM sd WHERE sd.late AND sd.started_at IS NOT NULL
               UNION ALL
               SELECT date_trunc('minute', sd.was_started_at), sd.shard, -1 FROM sd WHERE sd.was_late AND sd.was_started_at IS NOT NULL) a
        WHERE a.minute >= clock_timestamp() - interval '25 hours'
        GROUP BY 1, 2
       HAVING sum(a.late) <> 0
     )
     -- The started run as before (its columns for the deltas left out).
     SELECT to_jsonb(u) - '{planned_at,kind,reruns,started_at,was_lateness_ms,was_started_at,start_jitter_ms}'::text[] FROM u;
  IF FOUND THEN
    PERFORM nextval('vigil_console_version');
  END IF;
  PERFORM set_config('vigil.hot_deltas', coalesce(v_setting_was, ''), true);
END
$body$;

CREATE OR REPLACE FUNCTION vigil_finish_free_runs(p_run_ids uuid[], p_args jsonb) RETURNS SETOF jsonb
LANGUAGE plpgsql VOLATILE SET plan_cache_mode = force_generic_plan AS $body$
DECLARE
  v_setting_was text := current_setting('vigil.hot_deltas', true);
BEGIN
  PERFORM 1 FROM schedules s
    WHERE s.id = ANY(ARRAY(SELECT r.schedule_id FROM runs r WHERE r.id = ANY(p_run_ids))) AND s.overlap_policy <> 'allow'
    ORDER BY s.id
    FOR NO KEY UPDATE OF s;
  PERFORM 1 FROM concurrency_groups g
    WHERE g.name = ANY(ARRAY(SELECT r.concurrency_group FROM runs r WHERE r.id = ANY(p_run_ids)))
    ORDER BY g.name
    FOR UPDATE OF g;
  PERFORM set_config('vigil.hot_deltas', 'on', true);
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
        RETURNING r.id, r.schedule_id, r.state, r.planned_at, r.kind, r.reruns, r.attempt, r.lateness_ms, r.finished_at, r.duration_ms
     ),
     e AS (
       INSERT INTO run_events (run_id, type, attempt, worker_id, message, data, at)
       SELECT c.id, 'finished', c.attempt, c.worker_id, c.message, c.data,
              greatest(t.now - make_interval(secs => greatest(0::float8, 0) / 1000.0),
                   (SELECT max(prev.at) FROM run_events prev
                     WHERE prev.run_id = c.id AND prev.worker_id = c.worker_id AND prev.attempt = c.attempt))
         FROM c JOIN ur ON ur.id = c.id, t
     ),
     sl AS (
       INSERT INTO schedule_last_runs AS l (schedule_id, run_id, state, planned_at, finished_at, lateness_ms)
       SELECT DISTINCT ON (ur.schedule_id) ur.schedule_id, ur.id, ur.state, ur.planned_at, ur.finished_at, ur.lateness_ms
         FROM ur
        WHERE ur.planned_at <= clock_timestamp()
        ORDER BY ur.schedule_id, ur.planned_at DESC
       ON CONFLICT (schedule_id) DO UPDATE
         SET run_id = excluded.run_id, state = excluded.state, planned_at = excluded.planned_at, finished_at = excluded.finished_at,
             lateness_ms = excluded.lateness_ms
         WHERE l.planned_at <= excluded.planned_at
     ),
     sf AS (
       -- The fleet's counts of finished runs by planned minute (vigil_fleet_counts, vigil_fleet_run_values): a running
       -- run is not counted, so a success only adds its finished row.
       SELECT g.minute, g.shard, vigil_array_sum(vigil_fleet_counts(g.state, g.n, g.retries, g.lat_k, g.gap_k, g.dur_k)) AS counts,
              vigil_array_sum(ARRAY[g.lat, g.gap, g.dur]) AS sums
         FROM (SELECT date_trunc('minute', ur.planned_at) AS minute, vigil_fleet_shard(ur.schedule_id) AS shard, ur.state,
                      v.lat_k, v.gap_k, v.dur_k, count(*)::int AS n, sum(greatest(ur.attempt - 1, 0))::int AS retries,
                      coalesce(sum(v.lat), 0) AS lat, coalesce(sum(v.gap), 0) AS gap, coalesce(sum(v.dur), 0) AS dur
                 FROM ur
                CROSS JOIN LATERAL vigil_fleet_run_values(ur.kind, ur.reruns, ur.lateness_ms, ur.planned_at, ur.finished_at, ur.duration_ms) v
                -- vigil_fleet_run_upsert's condition: minutes older than the kept range are never read.
                WHERE date_trunc('minute', ur.planned_at) >= clock_timestamp() - interval '25 hours'
                GROUP BY 1, 2, 3, 4, 5, 6) g
        GROUP BY 1, 2
     ),
     sfi AS (
       INSERT INTO fleet_run_minute_deltas (minute, shard, c01, c02, c03, c04, c05, c06, c07, c08, c09, c10, c11, c12, c13, c14, c15, c16, c17, c18, c19, c20, c21, c22, c23, c24, c25, c26, c27, c28, c29, c30, c31, c32, c33, c34, c35, c36, c37, c38, c39, c40, c41, c42, c43, c44, c45, c46, c47, c48, c49, c50, c51, c52, c53, c54, c55, c56, c57, s1, s2, s3)
       SELECT sf.minute, sf.shard, sf.counts[1], sf.counts[2], sf.counts[3], sf.counts[4], sf.counts[5], sf.counts[6], sf.counts[7], sf.counts[8], sf.counts[9], sf.counts[10], sf.counts[11], sf.counts[12], sf.counts[13], sf.counts[14], sf.counts[15], sf.counts[16], sf.counts[17], sf.counts[18], sf.counts[19], sf.counts[20], sf.counts[21], sf.counts[22], sf.counts[23], sf.counts[24], sf.counts[25], sf.counts[26], sf.counts[27], sf.counts[28], sf.counts[29], sf.counts[30], sf.counts[31], sf.counts[32], sf.counts[33], sf.counts[34], sf.counts[35], sf.counts[36], sf.counts[37], sf.counts[38], sf.counts[39], sf.counts[40], sf.counts[41], sf.counts[42], sf.counts[43], sf.counts[44], sf.counts[45], sf.counts[46], sf.counts[47], sf.counts[48], sf.counts[49], sf.counts[50], sf.counts[51], sf.counts[52], sf.counts[53], sf.counts[54], sf.counts[55], sf.counts[56], sf.counts[57], sf.sums[1], sf.sums[2], sf.sums[3]
         FROM sf
     )
     SELECT jsonb_build_object('id', ur.id) FROM ur;
  IF FOUND THEN
    PERFORM nextval('vigil_console_version');
  END IF;
  PERFORM set_config('vigil.hot_deltas', coalesce(v_setting_was, ''), true);
END
$body$;

CREATE OR REPLACE FUNCTION vigil_runs_update_summaries() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  f record;
BEGIN
  -- A hot statement (vigil_claim_free_runs, vigil_finish_free_runs) appended its rows' changes itself.
  IF current_setting('vigil.hot_deltas', true) = 'on' THEN
    RETURN NULL;
  END IF;
  SELECT coalesce(bool_or((o.state, o.started_at, o.finished_at, o.attempt, o.wait_reason, o.cancel_requested_at)
                          IS DISTINCT FROM (n.state, n.started_at, n.finished_at, n.attempt, n.wait_reason, n.cancel_requested_at)), false) AS console,
         coalesce(bool_or(c.ch AND (o.lateness_ms IS DISTINCT FROM n.lateness_ms
                                    OR (o.state = 'missed') <> (n.state = 'missed')
                                    OR (o.state = 'hollow') <> (n.state = 'hollow')
                                    OR (o.state IN ('failed', 'timed_out', 'zombie')) <> (n.state IN ('failed', 'timed_out', 'zombie')))), false) AS hourly,
         coalesce(bool_or(c.ch AND n.state IN ('succeeded', 'failed', 'timed_out', 'cancelled', 'skipped_overlap', 'missed', 'paused', 'excluded', 'hollow', 'zombie')
                          AND n.state IS DISTINCT FROM o.state), false) AS last_run,
         coalesce(bool_or(c.sees AND (o.state NOT IN ('planned', 'queued', 'running', 'retrying')
                                      OR n.state NOT IN ('planned', 'queued', 'running', 'retrying'))), false) AS fleet_runs,
         coalesce(bool_or(c.sees AND (o.state IN ('missed', 'hollow', 'zombie', 'failed', 'timed_out')
                                      OR n.state IN ('missed', 'hollow', 'zombie', 'failed', 'timed_out')
                                      OR ((o.lateness_ms > 1000 OR n.lateness_ms > 1000)
                                          AND (o.started_at, o.lateness_ms, o.schedule_id) IS DISTINCT FROM (n.started_at, n.lateness_ms, n.schedule_id)))),
                  false) AS fleet_attention
    INTO f
    FROM changed_new n JOIN changed_old o ON o.id = n.id
   CROSS JOIN LATERAL (
     -- ch's WHERE, and the fleet's (vigil_fleet_sees), as in the statements below.
     SELECT ((o.state IS DISTINCT FROM n.state OR o.lateness_ms IS DISTINCT FROM n.lateness_ms)
             AND (n.state NOT IN ('planned', 'queued', 'running', 'retrying')
                  OR o.state IN ('missed', 'hollow', 'failed', 'timed_out', 'zombie')
                  OR n.lateness_ms > 1000 OR o.lateness_ms > 1000)) IS TRUE AS ch,
            vigil_fleet_sees(o, n) IS TRUE AS sees) c;

  IF f.console THEN
    PERFORM nextval('vigil_console_version');
  END IF;

  IF f.hourly THEN
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
       -- vigil_run_outcome_classes(state, lateness, jitter) written out for the old and the new row: called, it was a
       -- function scan per row and side (not inlined: an OUT-parameter SQL function).
       CROSS JOIN LATERAL (SELECT (coalesce(ch.old_lateness > coalesce(j.jitter, 0) + 1000, false))::int AS late, (ch.old_state = 'missed')::int AS missed,
                                  (ch.old_state = 'hollow')::int AS hollow, (ch.old_state IN ('failed', 'timed_out', 'zombie'))::int AS failed) oc
       CROSS JOIN LATERAL (SELECT (coalesce(ch.new_lateness > coalesce(j.jitter, 0) + 1000, false))::int AS late, (ch.new_state = 'missed')::int AS missed,
                                  (ch.new_state = 'hollow')::int AS hollow, (ch.new_state IN ('failed', 'timed_out', 'zombie'))::int AS failed) nc
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
    )
    -- A schedule's first trouble in a new hour: drop its hours older than the longest window that reads them.
    DELETE FROM schedule_hourly_outcomes h USING ins
     WHERE ins.created AND h.schedule_id = ins.schedule_id AND h.hour < ins.hour - interval '8 days';
  END IF;

  IF f.last_run THEN
    WITH ch AS (
      -- The transitions that can change a count or the last run: an on-time planned → queued → running cannot.
      SELECT n.id, n.schedule_id, n.planned_at, n.finished_at, n.state AS new_state, o.state AS old_state,
             n.lateness_ms AS new_lateness, o.lateness_ms AS old_lateness
        FROM changed_new n JOIN changed_old o ON o.id = n.id
       WHERE (o.state IS DISTINCT FROM n.state OR o.lateness_ms IS DISTINCT FROM n.lateness_ms)
         AND (n.state NOT IN ('planned', 'queued', 'running', 'retrying')
              OR o.state IN ('missed', 'hollow', 'failed', 'timed_out', 'zombie')
              OR n.lateness_ms > 1000 OR o.lateness_ms > 1000)
    )
    INSERT INTO schedule_last_runs AS l (schedule_id, run_id, state, planned_at, finished_at, lateness_ms)
    SELECT DISTINCT ON (ch.schedule_id) ch.schedule_id, ch.id, ch.new_state, ch.planned_at, ch.finished_at, ch.new_lateness
      FROM ch
     WHERE ch.new_state IN ('succeeded', 'failed', 'timed_out', 'cancelled', 'skipped_overlap', 'missed', 'paused', 'excluded', 'hollow', 'zombie')
       AND ch.new_state IS DISTINCT FROM ch.old_state AND ch.planned_at <= clock_timestamp()
     ORDER BY ch.schedule_id, ch.planned_at DESC
    ON CONFLICT (schedule_id) DO UPDATE
      SET run_id = excluded.run_id, state = excluded.state, planned_at = excluded.planned_at, finished_at = excluded.finished_at,
          lateness_ms = excluded.lateness_ms
      WHERE l.planned_at <= excluded.planned_at;
  END IF;

  -- The fleet models (20261203100000), per statement: each changed run's old contribution taken out and its new one
  -- added, summed per (minute, shard); see 20261205200001 for how the changed pairs are read.
  IF f.fleet_runs THEN
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
    )
    -- vigil_fleet_run_upsert's condition: minutes older than the kept range are never read.
    INSERT INTO fleet_run_minute_deltas (minute, shard, c01, c02, c03, c04, c05, c06, c07, c08, c09, c10, c11, c12, c13, c14, c15, c16, c17, c18, c19, c20, c21, c22, c23, c24, c25, c26, c27, c28, c29, c30, c31, c32, c33, c34, c35, c36, c37, c38, c39, c40, c41, c42, c43, c44, c45, c46, c47, c48, c49, c50, c51, c52, c53, c54, c55, c56, c57, s1, s2, s3)
    SELECT x.minute, x.shard, x.counts[1], x.counts[2], x.counts[3], x.counts[4], x.counts[5], x.counts[6], x.counts[7], x.counts[8], x.counts[9], x.counts[10], x.counts[11], x.counts[12], x.counts[13], x.counts[14], x.counts[15], x.counts[16], x.counts[17], x.counts[18], x.counts[19], x.counts[20], x.counts[21], x.counts[22], x.counts[23], x.counts[24], x.counts[25], x.counts[26], x.counts[27], x.counts[28], x.counts[29], x.counts[30], x.counts[31], x.counts[32], x.counts[33], x.counts[34], x.counts[35], x.counts[36], x.counts[37], x.counts[38], x.counts[39], x.counts[40], x.counts[41], x.counts[42], x.counts[43], x.counts[44], x.counts[45], x.counts[46], x.counts[47], x.counts[48], x.counts[49], x.counts[50], x.counts[51], x.counts[52], x.counts[53], x.counts[54], x.counts[55], x.counts[56], x.counts[57], x.sums[1], x.sums[2], x.sums[3]
      FROM x
     WHERE (x.minute < clock_timestamp() - interval '25 hours') IS NOT TRUE;
  END IF;

  IF f.fleet_attention THEN
    WITH d AS MATERIALIZED (
      SELECT s.sign, s.r
        FROM changed_new n JOIN changed_old o ON o.id = n.id
       CROSS JOIN LATERAL (SELECT -1 AS sign, o::runs AS r UNION ALL SELECT 1, n::runs) s
       WHERE vigil_fleet_sees(o, n)
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
    )
    -- vigil_fleet_attention_upsert's condition.
    INSERT INTO fleet_attention_minute_deltas (minute, shard, late, missed, hollow, zombie, failed)
    SELECT a.minute, a.shard, a.late, a.missed, a.hollow, a.zombie, a.failed
      FROM a
     WHERE (a.minute IS NULL OR a.minute < clock_timestamp() - interval '25 hours' OR (a.late, a.missed, a.hollow, a.zombie, a.failed) = (0, 0, 0, 0, 0))
           IS NOT TRUE;
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION vigil_runs_trouble_update_rows() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- A hot statement (vigil_claim_free_runs, vigil_finish_free_runs) appended its rows' changes itself.
  IF current_setting('vigil.hot_deltas', true) = 'on' THEN
    RETURN NULL;
  END IF;
  INSERT INTO schedule_trouble_deltas (schedule_id, missed, hollow, failed, late)
  SELECT x.schedule_id, sum(x.missed), sum(x.hollow), sum(x.failed), sum(x.late)
    FROM (SELECT n.schedule_id,
                 (n.state = 'missed' AND o.state <> 'missed')::int AS missed,
                 (n.state = 'hollow' AND o.state <> 'hollow')::int AS hollow,
                 (n.state IN ('failed', 'timed_out') AND o.state NOT IN ('failed', 'timed_out'))::int AS failed,
                 CASE WHEN n.lateness_ms > 1000 AND n.kind <> 'backfill' AND n.reruns = 0
                      THEN (n.lateness_ms > j.jitter + 1000
                            AND NOT coalesce(o.kind <> 'backfill' AND o.reruns = 0 AND o.lateness_ms > j.jitter + 1000, false))::int
                      ELSE 0 END AS late
            FROM trouble_new n JOIN trouble_old o ON o.id = n.id
           CROSS JOIN LATERAL (SELECT CASE WHEN n.lateness_ms > 1000 AND n.kind <> 'backfill' AND n.reruns = 0
                                           THEN coalesce((SELECT s.start_jitter_ms FROM schedules s WHERE s.id = n.schedule_id), 0) END AS jitter) j
           WHERE (n.state IN ('missed', 'hollow', 'failed', 'timed_out') AND n.state IS DISTINCT FROM o.state)
              OR (n.lateness_ms > 1000 AND n.kind <> 'backfill' AND n.reruns = 0
                  AND (o.lateness_ms, o.kind, o.reruns) IS DISTINCT FROM (n.lateness_ms, n.kind, n.reruns))) x
   GROUP BY x.schedule_id
  HAVING sum(x.missed) + sum(x.hollow) + sum(x.failed) + sum(x.late) > 0;
  RETURN NULL;
END $$;
