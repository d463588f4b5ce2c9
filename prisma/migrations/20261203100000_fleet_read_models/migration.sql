-- Fleet read models (issue 17, second pass): the header's overview and the metrics scrape read per-minute fleet
-- totals instead of an hour of runs, so both cost the same at 50 and at 1,000 schedules.
--
-- 1. fleet_run_minutes: per planned minute (and shard), what GET /api/metrics reports fleet-wide about FINISHED
--    runs: counts by state, retries, and the bucket counts + sums of the three histograms (start lateness,
--    completion gap, duration; core/metrics/aggregate-runs.ts's buckets), in columns c01..c57 laid out as
--    vigil_fleet_counts' array (below) and s1..s3 (the histograms' sums in ms): plain columns, so summing an
--    hour (480 rows) is one cheap aggregate. Unfinished runs (planned, queued, running, retrying) are few and are
--    read directly (runs_unfinished_planned_idx), so the model changes only when a run finishes (or a finished run
--    changes): no trigger call for planned → queued → running.
-- 2. fleet_attention_minutes: per minute (and shard), the header's counts: late runs by the minute they started;
--    missed / hollow / zombie / failed (failed + timed_out) runs by the minute of their updated_at.
--
-- Reading a sliding window exactly: whole minutes come from the model, the partial minutes at the window's edges
-- straight from runs (core/metrics/read-fleet-runs.ts, core/runs/read/overview.ts), so the answers are those of
-- the direct aggregates (fleet-read-models.db.test.ts compares them). Rows older than 25 hours are dropped (a
-- window reaching further back is aggregated directly). Shards (hash of the schedule, 8) keep runs of many
-- schedules finishing in the same minute from queueing behind one row lock.
--
-- Cost on the run lifecycle: no new trigger on runs updates; the existing runs_summary_update (called on a run's
-- finish, on a late start, and on leaving a trouble state) also upserts one fleet_run_minutes row, plus one
-- fleet_attention_minutes row for a late or troubled run. Its WHEN also admits the rare updates of a finished run
-- that change what is counted (a re-run, a cancel request on a zombie that moves updated_at). Inserted and deleted
-- runs are added / taken out per statement (runs_fleet_insert, runs_fleet_delete), and a schedule's jitter change
-- redoes its late counts.

CREATE TABLE "fleet_run_minutes" (
    "minute" TIMESTAMPTZ(3) NOT NULL,
    "shard" SMALLINT NOT NULL,
    "c01" INTEGER NOT NULL DEFAULT 0,
    "c02" INTEGER NOT NULL DEFAULT 0,
    "c03" INTEGER NOT NULL DEFAULT 0,
    "c04" INTEGER NOT NULL DEFAULT 0,
    "c05" INTEGER NOT NULL DEFAULT 0,
    "c06" INTEGER NOT NULL DEFAULT 0,
    "c07" INTEGER NOT NULL DEFAULT 0,
    "c08" INTEGER NOT NULL DEFAULT 0,
    "c09" INTEGER NOT NULL DEFAULT 0,
    "c10" INTEGER NOT NULL DEFAULT 0,
    "c11" INTEGER NOT NULL DEFAULT 0,
    "c12" INTEGER NOT NULL DEFAULT 0,
    "c13" INTEGER NOT NULL DEFAULT 0,
    "c14" INTEGER NOT NULL DEFAULT 0,
    "c15" INTEGER NOT NULL DEFAULT 0,
    "c16" INTEGER NOT NULL DEFAULT 0,
    "c17" INTEGER NOT NULL DEFAULT 0,
    "c18" INTEGER NOT NULL DEFAULT 0,
    "c19" INTEGER NOT NULL DEFAULT 0,
    "c20" INTEGER NOT NULL DEFAULT 0,
    "c21" INTEGER NOT NULL DEFAULT 0,
    "c22" INTEGER NOT NULL DEFAULT 0,
    "c23" INTEGER NOT NULL DEFAULT 0,
    "c24" INTEGER NOT NULL DEFAULT 0,
    "c25" INTEGER NOT NULL DEFAULT 0,
    "c26" INTEGER NOT NULL DEFAULT 0,
    "c27" INTEGER NOT NULL DEFAULT 0,
    "c28" INTEGER NOT NULL DEFAULT 0,
    "c29" INTEGER NOT NULL DEFAULT 0,
    "c30" INTEGER NOT NULL DEFAULT 0,
    "c31" INTEGER NOT NULL DEFAULT 0,
    "c32" INTEGER NOT NULL DEFAULT 0,
    "c33" INTEGER NOT NULL DEFAULT 0,
    "c34" INTEGER NOT NULL DEFAULT 0,
    "c35" INTEGER NOT NULL DEFAULT 0,
    "c36" INTEGER NOT NULL DEFAULT 0,
    "c37" INTEGER NOT NULL DEFAULT 0,
    "c38" INTEGER NOT NULL DEFAULT 0,
    "c39" INTEGER NOT NULL DEFAULT 0,
    "c40" INTEGER NOT NULL DEFAULT 0,
    "c41" INTEGER NOT NULL DEFAULT 0,
    "c42" INTEGER NOT NULL DEFAULT 0,
    "c43" INTEGER NOT NULL DEFAULT 0,
    "c44" INTEGER NOT NULL DEFAULT 0,
    "c45" INTEGER NOT NULL DEFAULT 0,
    "c46" INTEGER NOT NULL DEFAULT 0,
    "c47" INTEGER NOT NULL DEFAULT 0,
    "c48" INTEGER NOT NULL DEFAULT 0,
    "c49" INTEGER NOT NULL DEFAULT 0,
    "c50" INTEGER NOT NULL DEFAULT 0,
    "c51" INTEGER NOT NULL DEFAULT 0,
    "c52" INTEGER NOT NULL DEFAULT 0,
    "c53" INTEGER NOT NULL DEFAULT 0,
    "c54" INTEGER NOT NULL DEFAULT 0,
    "c55" INTEGER NOT NULL DEFAULT 0,
    "c56" INTEGER NOT NULL DEFAULT 0,
    "c57" INTEGER NOT NULL DEFAULT 0,
    "s1" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "s2" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "s3" DOUBLE PRECISION NOT NULL DEFAULT 0,
    CONSTRAINT "fleet_run_minutes_pkey" PRIMARY KEY ("minute", "shard")
);

CREATE TABLE "fleet_attention_minutes" (
    "minute" TIMESTAMPTZ(3) NOT NULL,
    "shard" SMALLINT NOT NULL,
    "late" INTEGER NOT NULL DEFAULT 0,
    "missed" INTEGER NOT NULL DEFAULT 0,
    "hollow" INTEGER NOT NULL DEFAULT 0,
    "zombie" INTEGER NOT NULL DEFAULT 0,
    "failed" INTEGER NOT NULL DEFAULT 0,
    CONSTRAINT "fleet_attention_minutes_pkey" PRIMARY KEY ("minute", "shard")
);

-- Unfinished runs by planned time (the live part of a metrics window), and the runs the per-schedule trouble
-- series count (missed, hollow, failed, timed out, or started more than 1 s late: every late run, lateness.ts).
CREATE INDEX "runs_unfinished_planned_idx" ON "runs"("planned_at") WHERE "state" IN ('planned', 'queued', 'running', 'retrying');
-- It carries what they count (index-only where the table's pages are all-visible).
CREATE INDEX "runs_trouble_planned_idx" ON "runs"("planned_at") INCLUDE ("schedule_id", "state", "lateness_ms", "kind", "reruns")
    WHERE "state" IN ('missed', 'hollow', 'failed', 'timed_out') OR "lateness_ms" > 1000;

CREATE FUNCTION vigil_array_add(a INTEGER[], b INTEGER[]) RETURNS INTEGER[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN a IS NULL THEN b WHEN b IS NULL THEN a
              ELSE (SELECT array_agg(coalesce(x, 0) + coalesce(y, 0) ORDER BY i) FROM unnest(a, b) WITH ORDINALITY AS u(x, y, i)) END
$$;
CREATE FUNCTION vigil_array_add(a DOUBLE PRECISION[], b DOUBLE PRECISION[]) RETURNS DOUBLE PRECISION[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN a IS NULL THEN b WHEN b IS NULL THEN a
              ELSE (SELECT array_agg(coalesce(x, 0) + coalesce(y, 0) ORDER BY i) FROM unnest(a, b) WITH ORDINALITY AS u(x, y, i)) END
$$;
CREATE AGGREGATE vigil_array_sum(INTEGER[]) (SFUNC = vigil_array_add, STYPE = INTEGER[]);
CREATE AGGREGATE vigil_array_sum(DOUBLE PRECISION[]) (SFUNC = vigil_array_add, STYPE = DOUBLE PRECISION[]);

CREATE FUNCTION vigil_fleet_shard(schedule_id UUID) RETURNS SMALLINT LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT (hashtext(schedule_id::text) & 7)::smallint
$$;

-- A run's histogram values (ms) and their 1-based bucket positions among the "le" buckets + "+Inf", the same
-- values and buckets as core/metrics/aggregate-fleet.ts (LATENESS_BUCKETS, COMPLETION_BUCKETS in ms, negated and
-- reversed for width_bucket: position = number of bounds + 1 − the number of bounds >= x).
-- Declared as returning a (one-row) table so the planner inlines it into a query's FROM (a scalar or OUT-parameter
-- SQL function would be called per row: 60 µs a run).
CREATE FUNCTION vigil_fleet_run_values(kind TEXT, reruns INTEGER, lateness_ms INTEGER, planned_at TIMESTAMPTZ, finished_at TIMESTAMPTZ,
    duration_ms INTEGER) RETURNS TABLE (lat DOUBLE PRECISION, gap DOUBLE PRECISION, dur DOUBLE PRECISION, lat_k INTEGER, gap_k INTEGER,
    dur_k INTEGER) LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT v.lat, v.gap, v.dur,
         15 - width_bucket(-v.lat, '{-300000,-60000,-30000,-10000,-5000,-2500,-1000,-500,-250,-100,-50,-25,-10,-5}'::float8[]),
         14 - width_bucket(-v.gap, '{-3600000,-900000,-300000,-60000,-30000,-10000,-5000,-2500,-1000,-500,-250,-100,-50}'::float8[]),
         14 - width_bucket(-v.dur, '{-3600000,-900000,-300000,-60000,-30000,-10000,-5000,-2500,-1000,-500,-250,-100,-50}'::float8[])
    FROM (SELECT CASE WHEN kind <> 'backfill' AND reruns = 0 THEN lateness_ms::float8 END AS lat,
                 CASE WHEN kind <> 'backfill' AND reruns = 0 THEN (extract(epoch FROM finished_at - planned_at) * 1000)::float8 END AS gap,
                 duration_ms::float8 AS dur) v
$$;

-- The counts of `n` runs in one state with these bucket positions, laid out as core/metrics/fleet-counts.ts reads
-- them: [1..13] runs by state (RUN_STATES' order), [14] retries, [15..29] lateness buckets, [30..43] completion
-- gap buckets, [44..57] duration buckets (each: the "le" buckets in ascending order, then +Inf; not cumulative).
CREATE FUNCTION vigil_fleet_counts(state TEXT, n INTEGER, retries INTEGER, lat_k INTEGER, gap_k INTEGER, dur_k INTEGER)
    RETURNS INTEGER[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT array_agg(CASE WHEN i <= 13 THEN CASE WHEN i = array_position(
                          '{planned,queued,running,retrying,succeeded,failed,timed_out,cancelled,skipped_overlap,missed,paused,hollow,zombie}'::text[],
                          state) THEN n ELSE 0 END
                        WHEN i = 14 THEN retries
                        WHEN i <= 29 THEN CASE WHEN i - 14 = lat_k THEN n ELSE 0 END
                        WHEN i <= 43 THEN CASE WHEN i - 29 = gap_k THEN n ELSE 0 END
                        ELSE CASE WHEN i - 43 = dur_k THEN n ELSE 0 END END ORDER BY i)
    FROM generate_series(1, 57) i
$$;

CREATE FUNCTION vigil_fleet_run_upsert(minute TIMESTAMPTZ, shard SMALLINT, counts INTEGER[], sums DOUBLE PRECISION[]) RETURNS void
    LANGUAGE plpgsql AS $$
DECLARE
  created BOOLEAN;
BEGIN
  -- Minutes older than the kept range are never read (a longer window is aggregated directly).
  IF minute < clock_timestamp() - interval '25 hours' THEN RETURN; END IF;
  INSERT INTO fleet_run_minutes AS f (minute, shard,
      c01, c02, c03, c04, c05, c06, c07, c08, c09, c10, c11, c12, c13, c14, c15, c16, c17, c18, c19, c20, c21, c22, c23, c24,
      c25, c26, c27, c28, c29, c30, c31, c32, c33, c34, c35, c36, c37, c38, c39, c40, c41, c42, c43, c44, c45, c46, c47, c48,
      c49, c50, c51, c52, c53, c54, c55, c56, c57, s1, s2, s3)
  VALUES (minute, shard,
      counts[1], counts[2], counts[3], counts[4], counts[5], counts[6], counts[7], counts[8], counts[9], counts[10], counts[11],
      counts[12], counts[13], counts[14], counts[15], counts[16], counts[17], counts[18], counts[19], counts[20], counts[21],
      counts[22], counts[23], counts[24], counts[25], counts[26], counts[27], counts[28], counts[29], counts[30], counts[31],
      counts[32], counts[33], counts[34], counts[35], counts[36], counts[37], counts[38], counts[39], counts[40], counts[41],
      counts[42], counts[43], counts[44], counts[45], counts[46], counts[47], counts[48], counts[49], counts[50], counts[51],
      counts[52], counts[53], counts[54], counts[55], counts[56], counts[57], sums[1], sums[2], sums[3])
  ON CONFLICT ON CONSTRAINT fleet_run_minutes_pkey DO UPDATE SET
    c01 = f.c01 + excluded.c01, c02 = f.c02 + excluded.c02, c03 = f.c03 + excluded.c03, c04 = f.c04 + excluded.c04,
    c05 = f.c05 + excluded.c05, c06 = f.c06 + excluded.c06, c07 = f.c07 + excluded.c07, c08 = f.c08 + excluded.c08,
    c09 = f.c09 + excluded.c09, c10 = f.c10 + excluded.c10, c11 = f.c11 + excluded.c11, c12 = f.c12 + excluded.c12,
    c13 = f.c13 + excluded.c13, c14 = f.c14 + excluded.c14, c15 = f.c15 + excluded.c15, c16 = f.c16 + excluded.c16,
    c17 = f.c17 + excluded.c17, c18 = f.c18 + excluded.c18, c19 = f.c19 + excluded.c19, c20 = f.c20 + excluded.c20,
    c21 = f.c21 + excluded.c21, c22 = f.c22 + excluded.c22, c23 = f.c23 + excluded.c23, c24 = f.c24 + excluded.c24,
    c25 = f.c25 + excluded.c25, c26 = f.c26 + excluded.c26, c27 = f.c27 + excluded.c27, c28 = f.c28 + excluded.c28,
    c29 = f.c29 + excluded.c29, c30 = f.c30 + excluded.c30, c31 = f.c31 + excluded.c31, c32 = f.c32 + excluded.c32,
    c33 = f.c33 + excluded.c33, c34 = f.c34 + excluded.c34, c35 = f.c35 + excluded.c35, c36 = f.c36 + excluded.c36,
    c37 = f.c37 + excluded.c37, c38 = f.c38 + excluded.c38, c39 = f.c39 + excluded.c39, c40 = f.c40 + excluded.c40,
    c41 = f.c41 + excluded.c41, c42 = f.c42 + excluded.c42, c43 = f.c43 + excluded.c43, c44 = f.c44 + excluded.c44,
    c45 = f.c45 + excluded.c45, c46 = f.c46 + excluded.c46, c47 = f.c47 + excluded.c47, c48 = f.c48 + excluded.c48,
    c49 = f.c49 + excluded.c49, c50 = f.c50 + excluded.c50, c51 = f.c51 + excluded.c51, c52 = f.c52 + excluded.c52,
    c53 = f.c53 + excluded.c53, c54 = f.c54 + excluded.c54, c55 = f.c55 + excluded.c55, c56 = f.c56 + excluded.c56,
    c57 = f.c57 + excluded.c57, s1 = f.s1 + excluded.s1, s2 = f.s2 + excluded.s2, s3 = f.s3 + excluded.s3
  RETURNING (xmax = 0) INTO created;
  IF created THEN
    DELETE FROM fleet_run_minutes d WHERE d.shard = vigil_fleet_run_upsert.shard AND d.minute < clock_timestamp() - interval '25 hours';
  END IF;
END $$;

CREATE FUNCTION vigil_fleet_attention_upsert(minute TIMESTAMPTZ, shard SMALLINT, late INTEGER, missed INTEGER, hollow INTEGER,
    zombie INTEGER, failed INTEGER) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  created BOOLEAN;
BEGIN
  IF minute IS NULL OR minute < clock_timestamp() - interval '25 hours' OR (late, missed, hollow, zombie, failed) = (0, 0, 0, 0, 0) THEN
    RETURN;
  END IF;
  INSERT INTO fleet_attention_minutes AS f (minute, shard, late, missed, hollow, zombie, failed)
  VALUES (minute, shard, late, missed, hollow, zombie, failed)
  ON CONFLICT ON CONSTRAINT fleet_attention_minutes_pkey DO UPDATE
    SET late = f.late + excluded.late, missed = f.missed + excluded.missed, hollow = f.hollow + excluded.hollow,
        zombie = f.zombie + excluded.zombie, failed = f.failed + excluded.failed
  RETURNING (xmax = 0) INTO created;
  IF created THEN
    DELETE FROM fleet_attention_minutes d WHERE d.shard = vigil_fleet_attention_upsert.shard AND d.minute < clock_timestamp() - interval '25 hours';
  END IF;
END $$;

-- One run's contribution (sign +1 to add, −1 to take out) to both models. `jitter`: its schedule's start jitter
-- (only read when the run started more than 1 s late; lateness.ts's rule needs it). Written as plain PL/pgSQL
-- expressions (no query per value): it runs inside the finish of every run.
CREATE FUNCTION vigil_fleet_apply(r runs, sign INTEGER, jitter INTEGER) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  shard SMALLINT := vigil_fleet_shard(r.schedule_id);
  c INTEGER[];
  lat DOUBLE PRECISION;
  gap DOUBLE PRECISION;
  dur DOUBLE PRECISION := r.duration_ms;
BEGIN
  IF r.state NOT IN ('planned', 'queued', 'running', 'retrying') THEN
    -- vigil_fleet_run_values and vigil_fleet_counts, inline.
    IF r.kind <> 'backfill' AND r.reruns = 0 THEN
      lat := r.lateness_ms;
      gap := (extract(epoch FROM r.finished_at - r.planned_at) * 1000)::float8;
    END IF;
    c := array_fill(0, ARRAY[57]);
    c[array_position('{planned,queued,running,retrying,succeeded,failed,timed_out,cancelled,skipped_overlap,missed,paused,hollow,zombie}'::text[],
                     r.state)] := sign;
    c[14] := sign * greatest(r.attempt - 1, 0);
    IF lat IS NOT NULL THEN
      c[29 - width_bucket(-lat, '{-300000,-60000,-30000,-10000,-5000,-2500,-1000,-500,-250,-100,-50,-25,-10,-5}'::float8[])] := sign;
    END IF;
    IF gap IS NOT NULL THEN
      c[43 - width_bucket(-gap, '{-3600000,-900000,-300000,-60000,-30000,-10000,-5000,-2500,-1000,-500,-250,-100,-50}'::float8[])] := sign;
    END IF;
    IF dur IS NOT NULL THEN
      c[57 - width_bucket(-dur, '{-3600000,-900000,-300000,-60000,-30000,-10000,-5000,-2500,-1000,-500,-250,-100,-50}'::float8[])] := sign;
    END IF;
    PERFORM vigil_fleet_run_upsert(date_trunc('minute', r.planned_at), shard, c,
      ARRAY[sign * coalesce(lat, 0), sign * coalesce(gap, 0), sign * coalesce(dur, 0)]);
  END IF;
  IF r.started_at IS NOT NULL AND r.lateness_ms > coalesce(jitter, 0) + 1000 THEN
    PERFORM vigil_fleet_attention_upsert(date_trunc('minute', r.started_at), shard, sign, 0, 0, 0, 0);
  END IF;
  IF r.state IN ('missed', 'hollow', 'zombie', 'failed', 'timed_out') THEN
    PERFORM vigil_fleet_attention_upsert(date_trunc('minute', r.updated_at), shard, 0, sign * (r.state = 'missed')::int,
      sign * (r.state = 'hollow')::int, sign * (r.state = 'zombie')::int, sign * (r.state IN ('failed', 'timed_out'))::int);
  END IF;
END $$;

-- The row trigger's function (20261202700000), extended: after its own summaries, the run's old contribution
-- to the fleet models is taken out and its new one added.
CREATE OR REPLACE FUNCTION vigil_runs_summary_update() RETURNS trigger LANGUAGE plpgsql AS $$
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
  -- Only a finished run, or one that started more than 1 s late, counts in the fleet models.
  IF OLD.state NOT IN ('planned', 'queued', 'running', 'retrying') OR OLD.lateness_ms > 1000 THEN
    PERFORM vigil_fleet_apply(OLD, -1, jitter);
  END IF;
  IF NEW.state NOT IN ('planned', 'queued', 'running', 'retrying') OR NEW.lateness_ms > 1000 THEN
    PERFORM vigil_fleet_apply(NEW, 1, jitter);
  END IF;
  RETURN NULL;
END $$;

-- Same trigger, admitting also the (rare) updates of a finished or troubled run that change what the fleet models
-- count. An on-time planned → queued → running still calls nothing; a finish calls it once, as before.
DROP TRIGGER runs_summary_update ON "runs";
CREATE TRIGGER runs_summary_update AFTER UPDATE ON "runs" FOR EACH ROW
    WHEN (((OLD.state IS DISTINCT FROM NEW.state OR OLD.lateness_ms IS DISTINCT FROM NEW.lateness_ms)
           AND (NEW.state NOT IN ('planned', 'queued', 'running', 'retrying')
                OR OLD.state IN ('missed', 'hollow', 'failed', 'timed_out', 'zombie')
                OR NEW.lateness_ms > 1000 OR OLD.lateness_ms > 1000))
          OR (OLD.state NOT IN ('planned', 'queued', 'running', 'retrying')
              AND (OLD.attempt, OLD.kind, OLD.reruns, OLD.planned_at, OLD.finished_at, OLD.duration_ms, OLD.schedule_id)
                  IS DISTINCT FROM (NEW.attempt, NEW.kind, NEW.reruns, NEW.planned_at, NEW.finished_at, NEW.duration_ms, NEW.schedule_id))
          OR (OLD.state IN ('missed', 'hollow', 'failed', 'timed_out', 'zombie') AND OLD.updated_at IS DISTINCT FROM NEW.updated_at)
          OR ((OLD.lateness_ms > 1000 OR NEW.lateness_ms > 1000) AND OLD.started_at IS DISTINCT FROM NEW.started_at))
    EXECUTE FUNCTION vigil_runs_summary_update();

-- Inserted and deleted runs, per statement: one aggregate over the statement's rows instead of a call per row.
-- The same body twice (a transition table's name is fixed per trigger): `inserted` adds, `deleted` takes out.
CREATE FUNCTION vigil_runs_fleet_insert() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  keep TIMESTAMPTZ := clock_timestamp() - interval '25 hours';
BEGIN
  PERFORM vigil_fleet_run_upsert(x.minute, x.shard, x.counts, x.sums)
     FROM (SELECT g.minute, g.shard, vigil_array_sum(vigil_fleet_counts(g.state, g.n, g.retries, g.lat_k, g.gap_k, g.dur_k)) AS counts,
                  vigil_array_sum(ARRAY[g.lat, g.gap, g.dur]) AS sums
             FROM (SELECT date_trunc('minute', n.planned_at) AS minute, vigil_fleet_shard(n.schedule_id) AS shard, n.state, v.lat_k, v.gap_k, v.dur_k,
                          count(*)::int AS n, sum(greatest(n.attempt - 1, 0))::int AS retries,
                          coalesce(sum(v.lat), 0) AS lat, coalesce(sum(v.gap), 0) AS gap, coalesce(sum(v.dur), 0) AS dur
                     FROM inserted n
                    CROSS JOIN LATERAL vigil_fleet_run_values(n.kind, n.reruns, n.lateness_ms, n.planned_at, n.finished_at, n.duration_ms) v
                    WHERE n.state NOT IN ('planned', 'queued', 'running', 'retrying') AND n.planned_at >= keep
                    GROUP BY 1, 2, 3, 4, 5, 6) g
            GROUP BY 1, 2) x;
  PERFORM vigil_fleet_attention_upsert(a.minute, a.shard, a.late, a.missed, a.hollow, a.zombie, a.failed)
     FROM (SELECT u.minute, u.shard, sum(u.late)::int AS late, sum(u.missed)::int AS missed, sum(u.hollow)::int AS hollow,
                  sum(u.zombie)::int AS zombie, sum(u.failed)::int AS failed
             FROM (SELECT date_trunc('minute', n.started_at) AS minute, vigil_fleet_shard(n.schedule_id) AS shard, 1 AS late, 0 AS missed,
                          0 AS hollow, 0 AS zombie, 0 AS failed
                     FROM inserted n JOIN schedules s ON s.id = n.schedule_id
                    WHERE n.started_at >= keep AND n.lateness_ms > coalesce(s.start_jitter_ms, 0) + 1000
                   UNION ALL
                   SELECT date_trunc('minute', n.updated_at), vigil_fleet_shard(n.schedule_id), 0, (n.state = 'missed')::int,
                          (n.state = 'hollow')::int, (n.state = 'zombie')::int, (n.state IN ('failed', 'timed_out'))::int
                     FROM inserted n
                    WHERE n.state IN ('missed', 'hollow', 'zombie', 'failed', 'timed_out') AND n.updated_at >= keep) u
            GROUP BY 1, 2) a;
  RETURN NULL;
END $$;

CREATE FUNCTION vigil_runs_fleet_delete() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  keep TIMESTAMPTZ := clock_timestamp() - interval '25 hours';
BEGIN
  PERFORM vigil_fleet_run_upsert(x.minute, x.shard, x.counts, x.sums)
     FROM (SELECT g.minute, g.shard, vigil_array_sum(vigil_fleet_counts(g.state, -g.n, -g.retries, g.lat_k, g.gap_k, g.dur_k)) AS counts,
                  vigil_array_sum(ARRAY[-g.lat, -g.gap, -g.dur]) AS sums
             FROM (SELECT date_trunc('minute', n.planned_at) AS minute, vigil_fleet_shard(n.schedule_id) AS shard, n.state, v.lat_k, v.gap_k, v.dur_k,
                          count(*)::int AS n, sum(greatest(n.attempt - 1, 0))::int AS retries,
                          coalesce(sum(v.lat), 0) AS lat, coalesce(sum(v.gap), 0) AS gap, coalesce(sum(v.dur), 0) AS dur
                     FROM deleted n
                    CROSS JOIN LATERAL vigil_fleet_run_values(n.kind, n.reruns, n.lateness_ms, n.planned_at, n.finished_at, n.duration_ms) v
                    WHERE n.state NOT IN ('planned', 'queued', 'running', 'retrying') AND n.planned_at >= keep
                    GROUP BY 1, 2, 3, 4, 5, 6) g
            GROUP BY 1, 2) x;
  PERFORM vigil_fleet_attention_upsert(a.minute, a.shard, -a.late, -a.missed, -a.hollow, -a.zombie, -a.failed)
     FROM (SELECT u.minute, u.shard, sum(u.late)::int AS late, sum(u.missed)::int AS missed, sum(u.hollow)::int AS hollow,
                  sum(u.zombie)::int AS zombie, sum(u.failed)::int AS failed
             FROM (SELECT date_trunc('minute', n.started_at) AS minute, vigil_fleet_shard(n.schedule_id) AS shard, 1 AS late, 0 AS missed,
                          0 AS hollow, 0 AS zombie, 0 AS failed
                     FROM deleted n JOIN schedules s ON s.id = n.schedule_id
                    WHERE n.started_at >= keep AND n.lateness_ms > coalesce(s.start_jitter_ms, 0) + 1000
                   UNION ALL
                   SELECT date_trunc('minute', n.updated_at), vigil_fleet_shard(n.schedule_id), 0, (n.state = 'missed')::int,
                          (n.state = 'hollow')::int, (n.state = 'zombie')::int, (n.state IN ('failed', 'timed_out'))::int
                     FROM deleted n
                    WHERE n.state IN ('missed', 'hollow', 'zombie', 'failed', 'timed_out') AND n.updated_at >= keep) u
            GROUP BY 1, 2) a;
  RETURN NULL;
END $$;

CREATE TRIGGER runs_fleet_insert AFTER INSERT ON "runs" REFERENCING NEW TABLE AS inserted
    FOR EACH STATEMENT EXECUTE FUNCTION vigil_runs_fleet_insert();
CREATE TRIGGER runs_fleet_delete AFTER DELETE ON "runs" REFERENCING OLD TABLE AS deleted
    FOR EACH STATEMENT EXECUTE FUNCTION vigil_runs_fleet_delete();

-- A schedule's start jitter decides which of its runs are late: when it changes, its late counts are redone.
CREATE FUNCTION vigil_schedule_fleet_jitter() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM vigil_fleet_attention_upsert(x.minute, vigil_fleet_shard(NEW.id), x.late, 0, 0, 0, 0)
     FROM (SELECT date_trunc('minute', r.started_at) AS minute,
                  (count(*) FILTER (WHERE r.lateness_ms > coalesce(NEW.start_jitter_ms, 0) + 1000)
                   - count(*) FILTER (WHERE r.lateness_ms > coalesce(OLD.start_jitter_ms, 0) + 1000))::int AS late
             FROM runs r
            WHERE r.schedule_id = NEW.id AND r.lateness_ms > 1000 AND r.started_at >= clock_timestamp() - interval '25 hours'
            GROUP BY 1) x;
  RETURN NULL;
END $$;

CREATE TRIGGER schedules_fleet_jitter AFTER UPDATE OF start_jitter_ms ON "schedules" FOR EACH ROW
    WHEN (OLD.start_jitter_ms IS DISTINCT FROM NEW.start_jitter_ms)
    EXECUTE FUNCTION vigil_schedule_fleet_jitter();

-- What is already there (the last 25 hours).
SELECT vigil_fleet_run_upsert(x.minute, x.shard, x.counts, x.sums)
  FROM (SELECT g.minute, g.shard, vigil_array_sum(vigil_fleet_counts(g.state, g.n, g.retries, g.lat_k, g.gap_k, g.dur_k)) AS counts,
               vigil_array_sum(ARRAY[g.lat, g.gap, g.dur]) AS sums
  FROM (SELECT date_trunc('minute', r.planned_at) AS minute, vigil_fleet_shard(r.schedule_id) AS shard, r.state, v.lat_k, v.gap_k, v.dur_k,
               count(*)::int AS n, sum(greatest(r.attempt - 1, 0))::int AS retries,
               coalesce(sum(v.lat), 0) AS lat, coalesce(sum(v.gap), 0) AS gap, coalesce(sum(v.dur), 0) AS dur
          FROM runs r
         CROSS JOIN LATERAL vigil_fleet_run_values(r.kind, r.reruns, r.lateness_ms, r.planned_at, r.finished_at, r.duration_ms) v
         WHERE r.state NOT IN ('planned', 'queued', 'running', 'retrying') AND r.planned_at >= now() - interval '25 hours'
         GROUP BY 1, 2, 3, 4, 5, 6) g
 GROUP BY 1, 2) x;

INSERT INTO fleet_attention_minutes (minute, shard, late, missed, hollow, zombie, failed)
SELECT u.minute, u.shard, sum(u.late), sum(u.missed), sum(u.hollow), sum(u.zombie), sum(u.failed)
  FROM (SELECT date_trunc('minute', r.started_at) AS minute, vigil_fleet_shard(r.schedule_id) AS shard, 1 AS late, 0 AS missed,
               0 AS hollow, 0 AS zombie, 0 AS failed
          FROM runs r JOIN schedules s ON s.id = r.schedule_id
         WHERE r.started_at >= now() - interval '25 hours' AND r.lateness_ms > coalesce(s.start_jitter_ms, 0) + 1000
        UNION ALL
        SELECT date_trunc('minute', r.updated_at), vigil_fleet_shard(r.schedule_id), 0, (r.state = 'missed')::int,
               (r.state = 'hollow')::int, (r.state = 'zombie')::int, (r.state IN ('failed', 'timed_out'))::int
          FROM runs r
         WHERE r.state IN ('missed', 'hollow', 'zombie', 'failed', 'timed_out') AND r.updated_at >= now() - interval '25 hours') u
 GROUP BY 1, 2;
