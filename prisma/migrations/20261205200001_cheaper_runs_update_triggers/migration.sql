-- The runs UPDATE triggers, cheaper per claim and outcome batch (issue 16: in a fan-out most runs start more than a
-- second late, so every claim and outcome statement has rows for the per-schedule summaries and trouble counters).
-- What they record is unchanged (core/runs/run-summaries.db.test.ts, core/metrics/fleet-read-models.db.test.ts):
--  - vigil_runs_update_summaries (20261204500000): the old and new outcome classes of each changed run are the
--    expressions of vigil_run_outcome_classes written out, not two calls of it per run;
--  - runs_trouble_update (20261204100000) runs once per statement over the transition tables instead of once per
--    run: the same rows (its WHEN), the same deltas summed per schedule (the fold sums them anyway), one INSERT.

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


-- The trouble counters' deltas of an UPDATE, per statement: the rows the row trigger's WHEN selected, each counted as
-- vigil_runs_trouble_update (20261204100000) counted it, summed per schedule.
CREATE FUNCTION vigil_runs_trouble_update_rows() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
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

DROP TRIGGER runs_trouble_update ON "runs";
DROP FUNCTION vigil_runs_trouble_update();
CREATE TRIGGER runs_trouble_update AFTER UPDATE ON "runs" REFERENCING OLD TABLE AS trouble_old NEW TABLE AS trouble_new
    FOR EACH STATEMENT EXECUTE FUNCTION vigil_runs_trouble_update_rows();
