-- Run read models per statement instead of per row (issue 16's fan-out profile). The claim and outcome paths
-- update a batch of runs in one statement, but the read models of 20261202700000 were kept by row triggers: for a
-- run started late (lateness > 1000 ms: every run of a large fan-out) its start and its finish each called
-- vigil_runs_summary_update, ~10 statements per run (jitter look-up, two class calls, the hourly upsert and its
-- clean-up, the last-run upsert), and every change bumped the console version once per row.
-- Here one trigger per UPDATE statement does the same from its transition tables: the same rule for which
-- transitions count (the old trigger's WHEN), the same per-(schedule, hour) deltas summed over the statement's rows,
-- the same clean-up of a schedule's old hours when it gets its first row of an hour, the same last run (of the
-- statement's rows that ended, the latest planned), and one console-version bump when any row changed what the
-- console shows. One difference, harmless: a statement that creates two hours of one schedule more than 8 days
-- apart keeps the older (the clean-up does not see rows its own statement inserted); no window reads that far.

DROP TRIGGER runs_summary_update ON "runs";
DROP TRIGGER runs_console_version_update ON "runs";
DROP FUNCTION vigil_runs_summary_update();

CREATE FUNCTION vigil_runs_update_summaries() RETURNS trigger LANGUAGE plpgsql AS $$
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
  RETURN NULL;
END $$;

CREATE TRIGGER runs_update_summaries AFTER UPDATE ON "runs" REFERENCING OLD TABLE AS changed_old NEW TABLE AS changed_new
    FOR EACH STATEMENT EXECUTE FUNCTION vigil_runs_update_summaries();
