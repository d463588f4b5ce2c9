-- Console read models (issue 17): what the console polls must cost what changed, not what exists.
--
-- 1. vigil_console_version: a sequence bumped by any change the console's polled reads show (a run's state or
--    times, a schedule's definition). GET /api/overview, /api/schedules and /api/timeline answer 304 to a client
--    whose ETag names the current value. A sequence, not a counter row: nextval never blocks another transaction
--    (a counter row would serialise every finishing run behind one row lock).
-- 2. schedule_hourly_outcomes: per schedule and planned hour, how many runs are late / missed / hollow / failed
--    (failed, timed_out, zombie): the schedules list's "last 24 h", its "most trouble first" sort and the
--    timeline's trouble sort read ~24 rows per schedule instead of ~1,440 runs. Kept exact by the triggers below
--    (a run that leaves a class, e.g. a re-run of a failed run, is taken out again).
-- 3. schedule_last_runs: each schedule's latest finished run (planned at or before the moment it finished).
-- 4. Partial indexes for the header's overview: only runs in trouble (or started late) enter them, so the claim
--    and finish paths of ordinary runs do not maintain them.

CREATE SEQUENCE "vigil_console_version";

CREATE TABLE "schedule_hourly_outcomes" (
    "schedule_id" UUID NOT NULL,
    "hour" TIMESTAMPTZ(3) NOT NULL,
    "late" INTEGER NOT NULL DEFAULT 0,
    "missed" INTEGER NOT NULL DEFAULT 0,
    "hollow" INTEGER NOT NULL DEFAULT 0,
    "failed" INTEGER NOT NULL DEFAULT 0,
    CONSTRAINT "schedule_hourly_outcomes_pkey" PRIMARY KEY ("schedule_id", "hour")
);
CREATE INDEX "schedule_hourly_outcomes_hour_idx" ON "schedule_hourly_outcomes"("hour");
ALTER TABLE "schedule_hourly_outcomes" ADD CONSTRAINT "schedule_hourly_outcomes_schedule_id_fkey"
    FOREIGN KEY ("schedule_id") REFERENCES "schedules"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "schedule_last_runs" (
    "schedule_id" UUID NOT NULL,
    "run_id" UUID NOT NULL,
    "state" TEXT NOT NULL,
    "planned_at" TIMESTAMPTZ(3) NOT NULL,
    "finished_at" TIMESTAMPTZ(3),
    "lateness_ms" INTEGER,
    CONSTRAINT "schedule_last_runs_pkey" PRIMARY KEY ("schedule_id")
);
ALTER TABLE "schedule_last_runs" ADD CONSTRAINT "schedule_last_runs_schedule_id_fkey"
    FOREIGN KEY ("schedule_id") REFERENCES "schedules"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE INDEX "runs_trouble_updated_idx" ON "runs"("updated_at")
    WHERE "state" IN ('missed', 'hollow', 'zombie', 'failed', 'timed_out');
-- lateness.ts: late means lateness > jitter + 1000 ms, jitter >= 0, so every late run is in here.
CREATE INDEX "runs_late_started_idx" ON "runs"("started_at") WHERE "lateness_ms" > 1000;

-- The console-version bump. Heartbeats and other bookkeeping (heartbeat_at, wakes, planned_through) do not count.
CREATE FUNCTION vigil_bump_console_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM nextval('vigil_console_version');
  RETURN NULL;
END $$;

CREATE TRIGGER runs_console_version_insert AFTER INSERT OR DELETE ON "runs"
    FOR EACH STATEMENT EXECUTE FUNCTION vigil_bump_console_version();
CREATE TRIGGER runs_console_version_update AFTER UPDATE ON "runs" FOR EACH ROW
    WHEN ((OLD.state, OLD.started_at, OLD.finished_at, OLD.attempt, OLD.wait_reason, OLD.cancel_requested_at)
          IS DISTINCT FROM (NEW.state, NEW.started_at, NEW.finished_at, NEW.attempt, NEW.wait_reason, NEW.cancel_requested_at))
    EXECUTE FUNCTION vigil_bump_console_version();
CREATE TRIGGER schedules_console_version_insert AFTER INSERT OR DELETE ON "schedules"
    FOR EACH STATEMENT EXECUTE FUNCTION vigil_bump_console_version();
CREATE TRIGGER schedules_console_version_update AFTER UPDATE ON "schedules" FOR EACH ROW
    WHEN ((OLD.revision, OLD.updated_at, OLD.paused_at, OLD.paused_until, OLD.deleted_at, OLD.enabled, OLD.name, OLD.tags)
          IS DISTINCT FROM (NEW.revision, NEW.updated_at, NEW.paused_at, NEW.paused_until, NEW.deleted_at, NEW.enabled, NEW.name, NEW.tags))
    EXECUTE FUNCTION vigil_bump_console_version();

-- One run's classes, as the schedules list counts them (lateness.ts's rule for late).
CREATE FUNCTION vigil_run_outcome_classes(state TEXT, lateness_ms INTEGER, jitter_ms INTEGER,
    OUT late INTEGER, OUT missed INTEGER, OUT hollow INTEGER, OUT failed INTEGER) LANGUAGE sql IMMUTABLE AS $$
  SELECT (coalesce(lateness_ms > coalesce(jitter_ms, 0) + 1000, false))::int, (state = 'missed')::int, (state = 'hollow')::int,
         (state IN ('failed', 'timed_out', 'zombie'))::int
$$;

CREATE FUNCTION vigil_runs_summary_update() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  jitter INTEGER := 0;
  o RECORD;
  n RECORD;
  created BOOLEAN;
BEGIN
  IF greatest(OLD.lateness_ms, NEW.lateness_ms) > 1000 THEN
    SELECT start_jitter_ms INTO jitter FROM schedules WHERE id = NEW.schedule_id;
  END IF;
  SELECT * INTO o FROM vigil_run_outcome_classes(OLD.state, OLD.lateness_ms, jitter);
  SELECT * INTO n FROM vigil_run_outcome_classes(NEW.state, NEW.lateness_ms, jitter);
  IF (o.late, o.missed, o.hollow, o.failed) IS DISTINCT FROM (n.late, n.missed, n.hollow, n.failed) THEN
    INSERT INTO schedule_hourly_outcomes AS h (schedule_id, hour, late, missed, hollow, failed)
    VALUES (NEW.schedule_id, date_trunc('hour', NEW.planned_at), n.late - o.late, n.missed - o.missed, n.hollow - o.hollow, n.failed - o.failed)
    ON CONFLICT (schedule_id, hour) DO UPDATE
      SET late = h.late + excluded.late, missed = h.missed + excluded.missed, hollow = h.hollow + excluded.hollow, failed = h.failed + excluded.failed
    RETURNING (xmax = 0) INTO created;
    -- A schedule's first trouble in a new hour: drop its hours older than the longest window that reads them.
    IF created THEN
      DELETE FROM schedule_hourly_outcomes WHERE schedule_id = NEW.schedule_id AND hour < date_trunc('hour', NEW.planned_at) - interval '8 days';
    END IF;
  END IF;
  IF NEW.state IN ('succeeded', 'failed', 'timed_out', 'cancelled', 'skipped_overlap', 'missed', 'paused', 'hollow', 'zombie')
     AND NEW.state IS DISTINCT FROM OLD.state AND NEW.planned_at <= clock_timestamp() THEN
    INSERT INTO schedule_last_runs AS l (schedule_id, run_id, state, planned_at, finished_at, lateness_ms)
    VALUES (NEW.schedule_id, NEW.id, NEW.state, NEW.planned_at, NEW.finished_at, NEW.lateness_ms)
    ON CONFLICT (schedule_id) DO UPDATE
      SET run_id = excluded.run_id, state = excluded.state, planned_at = excluded.planned_at, finished_at = excluded.finished_at,
          lateness_ms = excluded.lateness_ms
      WHERE l.planned_at <= excluded.planned_at;
  END IF;
  RETURN NULL;
END $$;

-- Only transitions that can change a count or the last run call the function: a run going planned → queued →
-- running on time (the common case, two of its three updates) cannot (late needs lateness > 1000 ms, see above).
CREATE TRIGGER runs_summary_update AFTER UPDATE ON "runs" FOR EACH ROW
    WHEN ((OLD.state IS DISTINCT FROM NEW.state OR OLD.lateness_ms IS DISTINCT FROM NEW.lateness_ms)
          AND (NEW.state NOT IN ('planned', 'queued', 'running', 'retrying')
               OR OLD.state IN ('missed', 'hollow', 'failed', 'timed_out', 'zombie')
               OR NEW.lateness_ms > 1000 OR OLD.lateness_ms > 1000))
    EXECUTE FUNCTION vigil_runs_summary_update();

-- Inserts (the planner's planned rows, skipped occurrences, seeded history) are summed per statement: one
-- aggregate over the statement's rows instead of a trigger call per row.
CREATE FUNCTION vigil_runs_summary_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO schedule_hourly_outcomes AS h (schedule_id, hour, late, missed, hollow, failed)
  SELECT x.schedule_id, x.hour, sum(x.late), sum(x.missed), sum(x.hollow), sum(x.failed)
    FROM (SELECT n.schedule_id, date_trunc('hour', n.planned_at) AS hour, c.*
            FROM inserted n JOIN schedules s ON s.id = n.schedule_id
           CROSS JOIN LATERAL vigil_run_outcome_classes(n.state, n.lateness_ms, s.start_jitter_ms) c
           WHERE n.state <> 'planned' OR n.lateness_ms > 1000) x
   GROUP BY 1, 2
  HAVING sum(x.late + x.missed + x.hollow + x.failed) > 0
  ON CONFLICT (schedule_id, hour) DO UPDATE
    SET late = h.late + excluded.late, missed = h.missed + excluded.missed, hollow = h.hollow + excluded.hollow, failed = h.failed + excluded.failed;
  INSERT INTO schedule_last_runs AS l (schedule_id, run_id, state, planned_at, finished_at, lateness_ms)
  SELECT DISTINCT ON (n.schedule_id) n.schedule_id, n.id, n.state, n.planned_at, n.finished_at, n.lateness_ms
    FROM inserted n
   WHERE n.state IN ('succeeded', 'failed', 'timed_out', 'cancelled', 'skipped_overlap', 'missed', 'paused', 'hollow', 'zombie')
     AND n.planned_at <= clock_timestamp()
   ORDER BY n.schedule_id, n.planned_at DESC
  ON CONFLICT (schedule_id) DO UPDATE
    SET run_id = excluded.run_id, state = excluded.state, planned_at = excluded.planned_at, finished_at = excluded.finished_at,
        lateness_ms = excluded.lateness_ms
    WHERE l.planned_at <= excluded.planned_at;
  RETURN NULL;
END $$;

CREATE TRIGGER runs_summary_insert AFTER INSERT ON "runs" REFERENCING NEW TABLE AS inserted
    FOR EACH STATEMENT EXECUTE FUNCTION vigil_runs_summary_insert();

-- What is already there.
INSERT INTO schedule_hourly_outcomes (schedule_id, hour, late, missed, hollow, failed)
SELECT r.schedule_id, date_trunc('hour', r.planned_at), sum(c.late), sum(c.missed), sum(c.hollow), sum(c.failed)
  FROM runs r JOIN schedules s ON s.id = r.schedule_id
 CROSS JOIN LATERAL vigil_run_outcome_classes(r.state, r.lateness_ms, s.start_jitter_ms) c
 WHERE r.planned_at > now() - interval '8 days'
 GROUP BY 1, 2
HAVING sum(c.late + c.missed + c.hollow + c.failed) > 0;

INSERT INTO schedule_last_runs (schedule_id, run_id, state, planned_at, finished_at, lateness_ms)
SELECT DISTINCT ON (r.schedule_id) r.schedule_id, r.id, r.state, r.planned_at, r.finished_at, r.lateness_ms
  FROM runs r
 WHERE r.state IN ('succeeded', 'failed', 'timed_out', 'cancelled', 'skipped_overlap', 'missed', 'paused', 'hollow', 'zombie')
   AND r.planned_at <= now()
 ORDER BY r.schedule_id, r.planned_at DESC;
