-- Per-schedule trouble as counters (issue 17). The metrics' per-schedule series were gauges over the window (runs
-- planned in the last hour that are missed, hollow, failed or late), read per scrape from an index of troubled runs:
-- at 1,000 schedules with trouble in every one that is ~10,000 runs an hour, and the scrape's cost grew with the
-- fleet (17 → 47 ms p50, 25 → 104 ms p95 from 50 to 1,000 schedules). A count over a sliding window cannot be kept
-- exactly in fewer rows than the runs it counts; a counter can. So each schedule has one row of monotonically
-- increasing counts of trouble EVENTS — a run became missed, became hollow, became failed or timed out, started late
-- (lateness.ts's rule with the schedule's jitter at that moment; backfills and re-runs excluded, as before) — and
-- Prometheus takes the window with increase(…[1h]). A run that leaves trouble (re-run) does not decrease them.
--
-- Upkeep the way the fleet models are kept (20261203900000): triggers on runs APPEND increments to
-- schedule_trouble_deltas (no row another transaction waits on), and the fleet fold (worker/fleet-fold.ts,
-- every 2 s, one worker at a time) moves them into schedule_trouble_counters. A read sums the counters and the pending
-- deltas in one snapshot, so it is exact whether or not a fold has run. These triggers are separate from
-- runs_update_summaries (the claim/finish statements' own trigger is left as it is); an on-time claim or finish
-- does not pass the update trigger's WHEN, so it calls nothing.

CREATE TABLE "schedule_trouble_counters" (
    "schedule_id" UUID NOT NULL,
    "missed" BIGINT NOT NULL DEFAULT 0,
    "hollow" BIGINT NOT NULL DEFAULT 0,
    "failed" BIGINT NOT NULL DEFAULT 0,
    "late" BIGINT NOT NULL DEFAULT 0,
    CONSTRAINT "schedule_trouble_counters_pkey" PRIMARY KEY ("schedule_id")
);
-- No key, no foreign key: appended by the triggers, emptied by the fold (a schedule deleted meanwhile must not make
-- a fold fail; readers join schedules).
CREATE TABLE "schedule_trouble_deltas" (
    "schedule_id" UUID NOT NULL,
    "missed" INTEGER NOT NULL DEFAULT 0,
    "hollow" INTEGER NOT NULL DEFAULT 0,
    "failed" INTEGER NOT NULL DEFAULT 0,
    "late" INTEGER NOT NULL DEFAULT 0
);

-- Updated runs: one increment per run ENTERING a class (it was not in it before the update, it is after). A row
-- trigger whose WHEN lets through only the updates that can enter one (a state change into missed, hollow, failed or
-- timed out; a first start's lateness above 1 s, set or changed): the claim and finish of an ordinary run call
-- nothing, and a troubled one appends one row. (The WHEN is a superset: the function decides.)
CREATE FUNCTION vigil_runs_trouble_update() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  jitter INTEGER;
  late INTEGER := 0;
  missed INTEGER := (NEW.state = 'missed' AND OLD.state <> 'missed')::int;
  hollow INTEGER := (NEW.state = 'hollow' AND OLD.state <> 'hollow')::int;
  failed INTEGER := (NEW.state IN ('failed', 'timed_out') AND OLD.state NOT IN ('failed', 'timed_out'))::int;
BEGIN
  IF NEW.lateness_ms > 1000 AND NEW.kind <> 'backfill' AND NEW.reruns = 0 THEN
    SELECT coalesce(s.start_jitter_ms, 0) INTO jitter FROM schedules s WHERE s.id = NEW.schedule_id;
    jitter := coalesce(jitter, 0);
    late := (NEW.lateness_ms > jitter + 1000
             AND NOT coalesce(OLD.kind <> 'backfill' AND OLD.reruns = 0 AND OLD.lateness_ms > jitter + 1000, false))::int;
  END IF;
  IF missed + hollow + failed + late > 0 THEN
    INSERT INTO schedule_trouble_deltas (schedule_id, missed, hollow, failed, late) VALUES (NEW.schedule_id, missed, hollow, failed, late);
  END IF;
  RETURN NULL;
END $$;

-- Inserted runs: a run written straight into a class (a missed occurrence recorded as such) counts once.
CREATE FUNCTION vigil_runs_trouble_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO schedule_trouble_deltas (schedule_id, missed, hollow, failed, late)
  SELECT x.schedule_id, sum(x.missed), sum(x.hollow), sum(x.failed), sum(x.late)
    FROM (SELECT n.schedule_id, (n.state = 'missed')::int AS missed, (n.state = 'hollow')::int AS hollow,
                 (n.state IN ('failed', 'timed_out'))::int AS failed, coalesce(n.lateness_ms > j.jitter + 1000, false)::int AS late
            FROM trouble_inserted n
           CROSS JOIN LATERAL (SELECT CASE WHEN n.lateness_ms > 1000 AND n.kind <> 'backfill' AND n.reruns = 0
                                           THEN coalesce((SELECT s.start_jitter_ms FROM schedules s WHERE s.id = n.schedule_id), 0) END AS jitter) j
           WHERE n.state IN ('missed', 'hollow', 'failed', 'timed_out') OR n.lateness_ms > 1000) x
   GROUP BY x.schedule_id
  HAVING sum(x.missed) + sum(x.hollow) + sum(x.failed) + sum(x.late) > 0;
  RETURN NULL;
END $$;

CREATE TRIGGER runs_trouble_update AFTER UPDATE ON "runs" FOR EACH ROW
    WHEN ((NEW.state IN ('missed', 'hollow', 'failed', 'timed_out') AND NEW.state IS DISTINCT FROM OLD.state)
          OR (NEW.lateness_ms > 1000 AND NEW.kind <> 'backfill' AND NEW.reruns = 0
              AND (OLD.lateness_ms, OLD.kind, OLD.reruns) IS DISTINCT FROM (NEW.lateness_ms, NEW.kind, NEW.reruns)))
    EXECUTE FUNCTION vigil_runs_trouble_update();
-- Inserts per statement (the planner inserts in batches; almost all planned, which the filter drops).
CREATE TRIGGER runs_trouble_insert AFTER INSERT ON "runs" REFERENCING NEW TABLE AS trouble_inserted
    FOR EACH STATEMENT EXECUTE FUNCTION vigil_runs_trouble_insert();

-- Moves the committed deltas into the counters (one caller at a time; another returns -1 at once) and drops the
-- counters of schedules that no longer exist. Returns how many delta rows it folded. Called with vigil_fleet_fold().
CREATE FUNCTION vigil_schedule_trouble_fold() RETURNS INTEGER LANGUAGE plpgsql AS $$
DECLARE
  folded INTEGER;
BEGIN
  IF NOT pg_try_advisory_xact_lock(hashtext('vigil_schedule_trouble_fold')) THEN
    RETURN -1;
  END IF;
  WITH d AS (DELETE FROM schedule_trouble_deltas RETURNING *),
       g AS (INSERT INTO schedule_trouble_counters AS c (schedule_id, missed, hollow, failed, late)
             SELECT schedule_id, sum(missed), sum(hollow), sum(failed), sum(late) FROM d GROUP BY schedule_id ORDER BY schedule_id
             ON CONFLICT ON CONSTRAINT schedule_trouble_counters_pkey DO UPDATE
               SET missed = c.missed + excluded.missed, hollow = c.hollow + excluded.hollow, failed = c.failed + excluded.failed,
                   late = c.late + excluded.late
             RETURNING 1)
  SELECT (SELECT count(*) FROM d) INTO folded FROM (SELECT count(*) FROM g) x;
  IF folded > 0 THEN
    DELETE FROM schedule_trouble_counters c WHERE NOT EXISTS (SELECT 1 FROM schedules s WHERE s.id = c.schedule_id);
  END IF;
  RETURN folded;
END $$;

-- Counters start from the runs present now (each troubled run counted once, as if it had just entered its class).
INSERT INTO schedule_trouble_counters (schedule_id, missed, hollow, failed, late)
SELECT r.schedule_id, count(*) FILTER (WHERE r.state = 'missed'), count(*) FILTER (WHERE r.state = 'hollow'),
       count(*) FILTER (WHERE r.state IN ('failed', 'timed_out')),
       count(*) FILTER (WHERE r.kind <> 'backfill' AND r.reruns = 0 AND r.lateness_ms > coalesce(s.start_jitter_ms, 0) + 1000)
  FROM runs r JOIN schedules s ON s.id = r.schedule_id
 WHERE r.state IN ('missed', 'hollow', 'failed', 'timed_out') OR r.lateness_ms > 1000
 GROUP BY r.schedule_id;
