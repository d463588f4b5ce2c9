-- The two changes of this round to the runs table's read models, joined: 20261203100000 (fleet read models) kept
-- the per-minute fleet totals from the per-row summary trigger, and 20261203300000 (statement run summaries)
-- replaced that row trigger by one trigger per UPDATE statement, dropping the fleet upkeep with it. Here the
-- statement trigger keeps both: the per-schedule summaries and console version exactly as 20261203300000 wrote
-- them, and the fleet models with 20261203100000's rule (the same WHEN, the same old-out/new-in contributions),
-- summed over the statement's rows instead of one call per row. core/metrics/fleet-read-models.db.test.ts and
-- core/runs/run-summaries.db.test.ts check both against recounts from the runs.

-- Whether an update of a run can change what the fleet models count (the row trigger's WHEN of 20261203100000).
CREATE FUNCTION vigil_fleet_sees(o runs, n runs) RETURNS BOOLEAN LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT ((o.state IS DISTINCT FROM n.state OR o.lateness_ms IS DISTINCT FROM n.lateness_ms)
      AND (n.state NOT IN ('planned', 'queued', 'running', 'retrying')
      OR o.state IN ('missed', 'hollow', 'failed', 'timed_out', 'zombie')
      OR n.lateness_ms > 1000 OR o.lateness_ms > 1000))
      OR (o.state NOT IN ('planned', 'queued', 'running', 'retrying')
      AND (o.attempt, o.kind, o.reruns, o.planned_at, o.finished_at, o.duration_ms, o.schedule_id)
      IS DISTINCT FROM (n.attempt, n.kind, n.reruns, n.planned_at, n.finished_at, n.duration_ms, n.schedule_id))
      OR (o.state IN ('missed', 'hollow', 'failed', 'timed_out', 'zombie') AND o.updated_at IS DISTINCT FROM n.updated_at)
      OR ((o.lateness_ms > 1000 OR n.lateness_ms > 1000) AND o.started_at IS DISTINCT FROM n.started_at)
$$;

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
  PERFORM vigil_fleet_run_upsert(x.minute, x.shard, x.counts, x.sums)
     FROM (SELECT g.minute, g.shard, vigil_array_sum(vigil_fleet_counts(g.state, g.n, g.retries, g.lat_k, g.gap_k, g.dur_k)) AS counts,
                  vigil_array_sum(ARRAY[g.lat, g.gap, g.dur]) AS sums
             FROM (SELECT date_trunc('minute', (d.r).planned_at) AS minute, vigil_fleet_shard((d.r).schedule_id) AS shard, (d.r).state,
                          v.lat_k, v.gap_k, v.dur_k, sum(d.sign)::int AS n, sum(d.sign * greatest((d.r).attempt - 1, 0))::int AS retries,
                          coalesce(sum(d.sign * v.lat), 0) AS lat, coalesce(sum(d.sign * v.gap), 0) AS gap, coalesce(sum(d.sign * v.dur), 0) AS dur
                     FROM (SELECT s.sign, s.r
                       FROM changed_new n JOIN changed_old o ON o.id = n.id
                      CROSS JOIN LATERAL (VALUES (-1, o::runs), (1, n::runs)) s(sign, r)
                      WHERE vigil_fleet_sees(o, n)) d
                    CROSS JOIN LATERAL vigil_fleet_run_values((d.r).kind, (d.r).reruns, (d.r).lateness_ms, (d.r).planned_at,
                                                              (d.r).finished_at, (d.r).duration_ms) v
                    WHERE (d.r).state NOT IN ('planned', 'queued', 'running', 'retrying')
                    GROUP BY 1, 2, 3, 4, 5, 6
                   HAVING sum(d.sign) <> 0 OR sum(d.sign * greatest((d.r).attempt - 1, 0)) <> 0
                       OR coalesce(sum(d.sign * v.lat), 0) <> 0 OR coalesce(sum(d.sign * v.gap), 0) <> 0
                       OR coalesce(sum(d.sign * v.dur), 0) <> 0) g
            GROUP BY 1, 2) x;
  PERFORM vigil_fleet_attention_upsert(a.minute, a.shard, a.late, a.missed, a.hollow, a.zombie, a.failed)
     FROM (SELECT u.minute, u.shard, sum(u.late)::int AS late, sum(u.missed)::int AS missed, sum(u.hollow)::int AS hollow,
                  sum(u.zombie)::int AS zombie, sum(u.failed)::int AS failed
             FROM (SELECT date_trunc('minute', (d.r).started_at) AS minute, vigil_fleet_shard((d.r).schedule_id) AS shard, d.sign AS late,
                          0 AS missed, 0 AS hollow, 0 AS zombie, 0 AS failed
                     FROM (SELECT s.sign, s.r
                       FROM changed_new n JOIN changed_old o ON o.id = n.id
                      CROSS JOIN LATERAL (VALUES (-1, o::runs), (1, n::runs)) s(sign, r)
                      WHERE vigil_fleet_sees(o, n)) d
                    WHERE (d.r).started_at IS NOT NULL
                      -- the schedule's jitter looked up by key, and only for a run started more than 1 s late
                      AND CASE WHEN (d.r).lateness_ms > 1000
                               THEN (d.r).lateness_ms > coalesce((SELECT s.start_jitter_ms FROM schedules s WHERE s.id = (d.r).schedule_id), 0) + 1000
                               ELSE false END
                   UNION ALL
                   SELECT date_trunc('minute', (d.r).updated_at), vigil_fleet_shard((d.r).schedule_id), 0, d.sign * ((d.r).state = 'missed')::int,
                          d.sign * ((d.r).state = 'hollow')::int, d.sign * ((d.r).state = 'zombie')::int,
                          d.sign * ((d.r).state IN ('failed', 'timed_out'))::int
                     FROM (SELECT s.sign, s.r
                       FROM changed_new n JOIN changed_old o ON o.id = n.id
                      CROSS JOIN LATERAL (VALUES (-1, o::runs), (1, n::runs)) s(sign, r)
                      WHERE vigil_fleet_sees(o, n)) d
                    WHERE (d.r).state IN ('missed', 'hollow', 'zombie', 'failed', 'timed_out')) u
            GROUP BY 1, 2
           HAVING sum(u.late) <> 0 OR sum(u.missed) <> 0 OR sum(u.hollow) <> 0 OR sum(u.zombie) <> 0 OR sum(u.failed) <> 0) a;
  RETURN NULL;
END $$;
