-- vigil_runs_update_summaries (20261205200001) with its statements run only when they can write something (issue 16).
-- bench/fanout.bench.ts's profile and a claim/finish loop measured with the server's CPU time: at 8 runs a statement
-- (a worker's slots) the runs UPDATE triggers cost ~1.7 ms of CPU per claim or outcome statement whatever its rows,
-- half of the claim and outcome paths' database CPU — mostly starting the executor for their large statements, which
-- ran in full on every UPDATE even when they had nothing to write. Now one pass over the changed pairs decides
-- which of them can write, and the statements are split by what they keep so each runs only then:
--   console version  — a pair differs in (state, started_at, finished_at, attempt, wait_reason, cancel_requested_at);
--   hourly outcomes  — a pair of `ch` whose outcome classes can differ: lateness, or membership of missed / hollow /
--                      failed-timed_out-zombie changed (the classes are functions of those and the schedule's jitter);
--   last runs        — a pair of `ch` that entered a finished state;
--   fleet run deltas — a pair the fleet sees (vigil_fleet_sees) with the old or new row finished (x reads only those);
--   fleet attention  — a pair the fleet sees where one side is in trouble (missed, hollow, zombie, failed, timed_out),
--                      or one side started > 1 s late and (started_at, lateness_ms, schedule_id) changed: otherwise
--                      each pair's old and new contributions fall in the same (minute, shard) and cancel, and `a`
--                      writes nothing.
-- Each condition is implied by its statement writing a row, so skipping is exact; the statements themselves are
-- 20261205200001's, unchanged but for the split (core/runs/run-summaries.db.test.ts and
-- core/metrics/fleet-read-models.db.test.ts compare the models with the runs). A claim of on-time runs now runs one
-- statement (the pass) and the version bump; a late start the hourly, attention and pass statements; a success the
-- last runs and fleet run deltas.
CREATE OR REPLACE FUNCTION vigil_runs_update_summaries() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  f record;
BEGIN
  SELECT coalesce(bool_or((o.state, o.started_at, o.finished_at, o.attempt, o.wait_reason, o.cancel_requested_at)
                          IS DISTINCT FROM (n.state, n.started_at, n.finished_at, n.attempt, n.wait_reason, n.cancel_requested_at)), false) AS console,
         coalesce(bool_or(c.ch AND (o.lateness_ms IS DISTINCT FROM n.lateness_ms
                                    OR (o.state = 'missed') <> (n.state = 'missed')
                                    OR (o.state = 'hollow') <> (n.state = 'hollow')
                                    OR (o.state IN ('failed', 'timed_out', 'zombie')) <> (n.state IN ('failed', 'timed_out', 'zombie')))), false) AS hourly,
         coalesce(bool_or(c.ch AND n.state IN ('succeeded', 'failed', 'timed_out', 'cancelled', 'skipped_overlap', 'missed', 'paused', 'hollow', 'zombie')
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
     WHERE ch.new_state IN ('succeeded', 'failed', 'timed_out', 'cancelled', 'skipped_overlap', 'missed', 'paused', 'hollow', 'zombie')
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
