-- Retention (issue 14): history that expires by age in whole daily slices.
--
-- WHAT IS PARTITIONED AND WHY. run_events and run_logs are the bulk of the history (several events per run, any
-- number of log lines) and are only ever appended and read by run id, so they become RANGE-partitioned by `day`,
-- the UTC day the row was written. Expiring a day of them is a DETACH PARTITION CONCURRENTLY + DROP TABLE: no
-- row-by-row DELETE, no index churn, no dead tuples for VACUUM, almost no WAL.
-- `runs` and `attempts` stay ordinary tables, deleted in small batches by index (core/retention/expire-runs.ts):
--   * every hot statement addresses a run by `id` alone (claim, finish, heartbeat, cancel, pg-boss job data);
--     with `runs` partitioned by planned_at each of them would probe every partition (30+), and the primary key
--     and the global UNIQUE(idempotency_key) would have to include planned_at, i.e. stop being guarantees;
--   * attempts are updated by (run_id, number) on the claim/finish path for the same reason;
--   * a run is one row of the day's many (~1 run : 4-6 events : N log lines), so their DELETE is the small part.
--   The figures (bench/retention.bench.ts) are in the README's "Retention" section.
--
-- WHY A `day` COLUMN AND NOT `at`. A run that must outlive its day's partition (still running/queued/retrying,
-- a zombie, or a schedule whose own retention is longer) has its rows moved out of the expiring partition by
-- `UPDATE … SET day = <later day>` (row movement between partitions) before the drop; moving on `at` would
-- falsify the trace's timestamps. Rows get `day` from the database clock by default; no insert site changes.
--
-- FOREIGN KEYS. run_events/run_logs no longer reference runs: a cascade from each deleted run would probe every
-- partition (the DELETE we avoid). Rows whose run expired are unreachable (every read goes through the run) and
-- leave with their partition at the global horizon. attempts keeps its cascading key (one index probe per run).
--
-- UPGRADE IN PLACE. Existing rows are copied into daily partitions (day = UTC day of `at`) under this
-- migration's transaction and the migrator's advisory lock, in id ranges with a NOTICE per 500,000 rows (the
-- migrator prints notices), then the unpartitioned tables are dropped. Ids and sequences are kept.

-- Partition of `parent` for one UTC day, created as a plain table and attached (ATTACH takes SHARE UPDATE
-- EXCLUSIVE on the parent, which does not conflict with inserts; CREATE TABLE … PARTITION OF would take ACCESS
-- EXCLUSIVE). Returns false when it exists already, so concurrent or repeated calls are harmless.
CREATE FUNCTION vigil_ensure_day_partition(parent text, d date) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  part text := parent || '_p' || to_char(d, 'YYYYMMDD');
BEGIN
  IF to_regclass(format('%I', part)) IS NOT NULL THEN
    RETURN false;
  END IF;
  -- Two processes creating the same day at the same moment (workers, npm start's own check) take turns; the second
  -- finds the table once the first has committed. The handler below stays for a creator that has not committed yet.
  PERFORM pg_advisory_xact_lock(hashtext('vigil_ensure_day_partition'), hashtext(part));
  IF to_regclass(format('%I', part)) IS NOT NULL THEN
    RETURN false;
  END IF;
  BEGIN
    EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS)', part, parent);
    -- The CHECK lets ATTACH skip its validation scan (and documents the slice).
    EXECUTE format('ALTER TABLE %I ADD CONSTRAINT %I CHECK (day >= %L AND day < %L)', part, part || '_day', d, d + 1);
    EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)', parent, part, d, d + 1);
  EXCEPTION WHEN duplicate_table OR duplicate_object OR unique_violation THEN
    -- Another process (a second worker, npm start's own check) created it at the same moment.
    RETURN false;
  END;
  RETURN true;
END $$;

-- Copies an unpartitioned table's rows into the partitioned one in id ranges, printing progress.
CREATE FUNCTION vigil_copy_into_partitions(src text, dst text, cols text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  lo bigint;
  hi bigint;
  total bigint;
  done bigint := 0;
  n bigint;
  step constant bigint := 500000;
  d date;
BEGIN
  EXECUTE format('SELECT min(id), max(id), count(*) FROM %I', src) INTO lo, hi, total;
  IF total = 0 THEN
    RETURN 0;
  END IF;
  FOR d IN EXECUTE format($q$SELECT DISTINCT (at AT TIME ZONE 'UTC')::date FROM %I$q$, src) LOOP
    PERFORM vigil_ensure_day_partition(dst, d);
  END LOOP;
  WHILE lo <= hi LOOP
    EXECUTE format($q$INSERT INTO %I (%s, day) SELECT %s, (at AT TIME ZONE 'UTC')::date FROM %I WHERE id >= $1 AND id < $2$q$,
                   dst, cols, cols, src) USING lo, lo + step;
    GET DIAGNOSTICS n = ROW_COUNT;
    done := done + n;
    RAISE NOTICE '% → %: % of % rows', src, dst, done, total;
    lo := lo + step;
  END LOOP;
  RETURN done;
END $$;

-- ===== run_events =====
ALTER TABLE "run_events" RENAME TO "run_events_unpartitioned";
ALTER INDEX "run_events_pkey" RENAME TO "run_events_unpartitioned_pkey";
ALTER INDEX "run_events_run_id_id_idx" RENAME TO "run_events_unpartitioned_run_id_id_idx";
ALTER INDEX "run_events_zombie_detected_at_idx" RENAME TO "run_events_unpartitioned_zombie_idx";
ALTER SEQUENCE "run_events_id_seq" OWNED BY NONE;

CREATE TABLE "run_events" (
    "id" BIGINT NOT NULL DEFAULT nextval('run_events_id_seq'),
    "run_id" UUID NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT clock_timestamp(),
    "type" TEXT NOT NULL,
    "attempt" INTEGER,
    "worker_id" TEXT,
    "message" TEXT NOT NULL DEFAULT '',
    "data" JSONB,
    "day" DATE NOT NULL DEFAULT ((clock_timestamp() AT TIME ZONE 'UTC')::date),
    CONSTRAINT "run_events_pkey" PRIMARY KEY ("id", "day")
) PARTITION BY RANGE ("day");
CREATE INDEX "run_events_run_id_id_idx" ON "run_events"("run_id", "id");
CREATE INDEX "run_events_zombie_detected_at_idx" ON "run_events"("at") WHERE "type" = 'zombie_detected';
ALTER SEQUENCE "run_events_id_seq" OWNED BY "run_events"."id";

SELECT vigil_copy_into_partitions('run_events_unpartitioned', 'run_events', 'id, run_id, at, type, attempt, worker_id, message, data');
DROP TABLE "run_events_unpartitioned";

-- ===== run_logs =====
ALTER TABLE "run_logs" RENAME TO "run_logs_unpartitioned";
ALTER INDEX "run_logs_pkey" RENAME TO "run_logs_unpartitioned_pkey";
ALTER INDEX "run_logs_run_id_id_idx" RENAME TO "run_logs_unpartitioned_run_id_id_idx";
ALTER SEQUENCE "run_logs_id_seq" OWNED BY NONE;

CREATE TABLE "run_logs" (
    "id" BIGINT NOT NULL DEFAULT nextval('run_logs_id_seq'),
    "run_id" UUID NOT NULL,
    "attempt" INTEGER NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT clock_timestamp(),
    "level" TEXT NOT NULL,
    "message" TEXT NOT NULL,
    "fields" JSONB,
    "day" DATE NOT NULL DEFAULT ((clock_timestamp() AT TIME ZONE 'UTC')::date),
    CONSTRAINT "run_logs_pkey" PRIMARY KEY ("id", "day")
) PARTITION BY RANGE ("day");
CREATE INDEX "run_logs_run_id_id_idx" ON "run_logs"("run_id", "id");
ALTER SEQUENCE "run_logs_id_seq" OWNED BY "run_logs"."id";

SELECT vigil_copy_into_partitions('run_logs_unpartitioned', 'run_logs', 'id, run_id, attempt, at, level, message, fields');
DROP TABLE "run_logs_unpartitioned";

-- Today and the next days exist from the start; the retention duty keeps creating them ahead (and catches up
-- after downtime). A row for a day without a partition fails loudly instead of landing in a catch-all partition
-- that could never be dropped cheaply.
SELECT vigil_ensure_day_partition(t, (now() AT TIME ZONE 'UTC')::date + i)
  FROM unnest(ARRAY['run_events', 'run_logs']) t, generate_series(-1, 7) i;

DROP FUNCTION vigil_copy_into_partitions(text, text, text);

-- ===== Per-schedule retention =====
-- Days this schedule's finished runs (with their events and attempts) are kept; NULL = VIGIL_RETENTION_RUNS_DAYS.
ALTER TABLE "schedules" ADD COLUMN "retention_days" INTEGER
  CONSTRAINT "schedules_retention_days_check" CHECK ("retention_days" IS NULL OR "retention_days" BETWEEN 1 AND 3650);

-- ===== Daily summaries: outlive the runs =====
-- One row per schedule and UTC day of planned_at, rolled up by the retention duty from the runs of that day
-- (recomputed while the runs exist, frozen once they expire). The schedule page and /api/metrics read these for
-- the last 90 days. Counts follow core/runs/lateness.ts (late) and the run states.
CREATE TABLE "run_daily_summaries" (
    "schedule_id" UUID NOT NULL,
    "day" DATE NOT NULL,
    "total" INTEGER NOT NULL DEFAULT 0,
    "on_time" INTEGER NOT NULL DEFAULT 0,
    "late" INTEGER NOT NULL DEFAULT 0,
    "succeeded" INTEGER NOT NULL DEFAULT 0,
    "failed" INTEGER NOT NULL DEFAULT 0,
    "missed" INTEGER NOT NULL DEFAULT 0,
    "skipped" INTEGER NOT NULL DEFAULT 0,
    "hollow" INTEGER NOT NULL DEFAULT 0,
    "cancelled" INTEGER NOT NULL DEFAULT 0,
    "lateness_p50_ms" INTEGER,
    "lateness_p95_ms" INTEGER,
    "lateness_max_ms" INTEGER,
    "computed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT clock_timestamp(),
    CONSTRAINT "run_daily_summaries_pkey" PRIMARY KEY ("schedule_id", "day")
);
CREATE INDEX "run_daily_summaries_day_idx" ON "run_daily_summaries"("day");

-- ===== What the retention duty last did (one row), shown on the Workers page =====
CREATE TABLE "retention_status" (
    "id" BOOLEAN NOT NULL DEFAULT true CONSTRAINT "retention_status_one_row" CHECK ("id"),
    "settings" JSONB NOT NULL DEFAULT '{}',
    "worker_id" TEXT,
    "started_at" TIMESTAMPTZ(3),
    "finished_at" TIMESTAMPTZ(3),
    "result" JSONB,
    "error" TEXT,
    CONSTRAINT "retention_status_pkey" PRIMARY KEY ("id")
);

-- ===== Indexes the retention duty deletes by (small tables, batched DELETEs) =====
CREATE INDEX "once_markers_created_at_idx" ON "once_markers"("created_at");
CREATE INDEX "login_attempts_at_idx" ON "login_attempts"("at");
CREATE INDEX "sessions_expires_at_idx" ON "sessions"("expires_at");
