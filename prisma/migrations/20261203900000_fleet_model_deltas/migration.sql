-- The fleet read models (20261203100000) without the hot rows. Kept by upserts inside the claim and finish
-- statements, every run finishing (or starting late) in the same minute updated the same 8 (minute, shard) rows
-- and held their locks until its transaction committed: a 10,000-run fan-out serialised on them (the fan-out
-- bench's profile: the attention upsert at 28 ms a call, most of it waiting; drain 17.7 s → 58 s).
-- Now a run's contribution is APPENDED to a delta table (an INSERT takes no lock another writer waits on), and
-- one worker at a time folds the deltas into the minute rows every couple of seconds (vigil_fleet_fold, from
-- worker/fleet-fold.ts). Readers sum the minute rows AND the pending deltas in one snapshot, and a fold moves
-- deltas to minute rows in one transaction, so an answer is exact whenever it is read (fleet-read-models.db.test.ts
-- compares before and after a fold). Without a worker the deltas only wait (readers still exact).

CREATE TABLE "fleet_run_minute_deltas" (LIKE "fleet_run_minutes" INCLUDING DEFAULTS);
CREATE TABLE "fleet_attention_minute_deltas" (LIKE "fleet_attention_minutes" INCLUDING DEFAULTS);

-- Same signatures, so every caller (the runs statement trigger, the insert/delete triggers, the jitter trigger)
-- appends instead of upserting.
CREATE OR REPLACE FUNCTION vigil_fleet_run_upsert(minute TIMESTAMPTZ, shard SMALLINT, counts INTEGER[], sums DOUBLE PRECISION[])
    RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  -- Minutes older than the kept range are never read (a longer window is aggregated directly).
  IF minute < clock_timestamp() - interval '25 hours' THEN RETURN; END IF;
  INSERT INTO fleet_run_minute_deltas (minute, shard, c01, c02, c03, c04, c05, c06, c07, c08, c09, c10, c11, c12, c13, c14, c15, c16, c17, c18, c19, c20, c21, c22, c23, c24, c25, c26, c27, c28, c29, c30, c31, c32, c33, c34, c35, c36, c37, c38, c39, c40, c41, c42, c43, c44, c45, c46, c47, c48, c49, c50, c51, c52, c53, c54, c55, c56, c57, s1, s2, s3)
  VALUES (minute, shard, counts[1], counts[2], counts[3], counts[4], counts[5], counts[6], counts[7], counts[8], counts[9], counts[10], counts[11], counts[12], counts[13], counts[14], counts[15], counts[16], counts[17], counts[18], counts[19], counts[20], counts[21], counts[22], counts[23], counts[24], counts[25], counts[26], counts[27], counts[28], counts[29], counts[30], counts[31], counts[32], counts[33], counts[34], counts[35], counts[36], counts[37], counts[38], counts[39], counts[40], counts[41], counts[42], counts[43], counts[44], counts[45], counts[46], counts[47], counts[48], counts[49], counts[50], counts[51], counts[52], counts[53], counts[54], counts[55], counts[56], counts[57], sums[1], sums[2], sums[3]);
END $$;

CREATE OR REPLACE FUNCTION vigil_fleet_attention_upsert(minute TIMESTAMPTZ, shard SMALLINT, late INTEGER, missed INTEGER, hollow INTEGER,
    zombie INTEGER, failed INTEGER) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF minute IS NULL OR minute < clock_timestamp() - interval '25 hours' OR (late, missed, hollow, zombie, failed) = (0, 0, 0, 0, 0) THEN
    RETURN;
  END IF;
  INSERT INTO fleet_attention_minute_deltas (minute, shard, late, missed, hollow, zombie, failed)
  VALUES (minute, shard, late, missed, hollow, zombie, failed);
END $$;

-- Moves the committed deltas into the minute rows (one caller at a time; another returns -1 at once) and drops
-- minutes older than the kept range. Returns how many delta rows it folded.
CREATE FUNCTION vigil_fleet_fold() RETURNS INTEGER LANGUAGE plpgsql AS $$
DECLARE
  runs_folded INTEGER;
  attention_folded INTEGER;
BEGIN
  IF NOT pg_try_advisory_xact_lock(hashtext('vigil_fleet_fold')) THEN
    RETURN -1;
  END IF;
  WITH d AS (DELETE FROM fleet_run_minute_deltas RETURNING *),
       g AS (INSERT INTO fleet_run_minutes AS f (minute, shard, c01, c02, c03, c04, c05, c06, c07, c08, c09, c10, c11, c12, c13, c14, c15, c16, c17, c18, c19, c20, c21, c22, c23, c24, c25, c26, c27, c28, c29, c30, c31, c32, c33, c34, c35, c36, c37, c38, c39, c40, c41, c42, c43, c44, c45, c46, c47, c48, c49, c50, c51, c52, c53, c54, c55, c56, c57, s1, s2, s3)
             SELECT minute, shard, sum(c01), sum(c02), sum(c03), sum(c04), sum(c05), sum(c06), sum(c07), sum(c08), sum(c09), sum(c10), sum(c11), sum(c12), sum(c13), sum(c14), sum(c15), sum(c16), sum(c17), sum(c18), sum(c19), sum(c20), sum(c21), sum(c22), sum(c23), sum(c24), sum(c25), sum(c26), sum(c27), sum(c28), sum(c29), sum(c30), sum(c31), sum(c32), sum(c33), sum(c34), sum(c35), sum(c36), sum(c37), sum(c38), sum(c39), sum(c40), sum(c41), sum(c42), sum(c43), sum(c44), sum(c45), sum(c46), sum(c47), sum(c48), sum(c49), sum(c50), sum(c51), sum(c52), sum(c53), sum(c54), sum(c55), sum(c56), sum(c57), sum(s1), sum(s2), sum(s3)
               FROM d GROUP BY minute, shard ORDER BY minute, shard
             ON CONFLICT ON CONSTRAINT fleet_run_minutes_pkey DO UPDATE SET c01 = f.c01 + excluded.c01, c02 = f.c02 + excluded.c02, c03 = f.c03 + excluded.c03, c04 = f.c04 + excluded.c04, c05 = f.c05 + excluded.c05, c06 = f.c06 + excluded.c06, c07 = f.c07 + excluded.c07, c08 = f.c08 + excluded.c08, c09 = f.c09 + excluded.c09, c10 = f.c10 + excluded.c10, c11 = f.c11 + excluded.c11, c12 = f.c12 + excluded.c12, c13 = f.c13 + excluded.c13, c14 = f.c14 + excluded.c14, c15 = f.c15 + excluded.c15, c16 = f.c16 + excluded.c16, c17 = f.c17 + excluded.c17, c18 = f.c18 + excluded.c18, c19 = f.c19 + excluded.c19, c20 = f.c20 + excluded.c20, c21 = f.c21 + excluded.c21, c22 = f.c22 + excluded.c22, c23 = f.c23 + excluded.c23, c24 = f.c24 + excluded.c24, c25 = f.c25 + excluded.c25, c26 = f.c26 + excluded.c26, c27 = f.c27 + excluded.c27, c28 = f.c28 + excluded.c28, c29 = f.c29 + excluded.c29, c30 = f.c30 + excluded.c30, c31 = f.c31 + excluded.c31, c32 = f.c32 + excluded.c32, c33 = f.c33 + excluded.c33, c34 = f.c34 + excluded.c34, c35 = f.c35 + excluded.c35, c36 = f.c36 + excluded.c36, c37 = f.c37 + excluded.c37, c38 = f.c38 + excluded.c38, c39 = f.c39 + excluded.c39, c40 = f.c40 + excluded.c40, c41 = f.c41 + excluded.c41, c42 = f.c42 + excluded.c42, c43 = f.c43 + excluded.c43, c44 = f.c44 + excluded.c44, c45 = f.c45 + excluded.c45, c46 = f.c46 + excluded.c46, c47 = f.c47 + excluded.c47, c48 = f.c48 + excluded.c48, c49 = f.c49 + excluded.c49, c50 = f.c50 + excluded.c50, c51 = f.c51 + excluded.c51, c52 = f.c52 + excluded.c52, c53 = f.c53 + excluded.c53, c54 = f.c54 + excluded.c54, c55 = f.c55 + excluded.c55, c56 = f.c56 + excluded.c56, c57 = f.c57 + excluded.c57, s1 = f.s1 + excluded.s1, s2 = f.s2 + excluded.s2, s3 = f.s3 + excluded.s3
             RETURNING 1)
  SELECT (SELECT count(*) FROM d) INTO runs_folded FROM (SELECT count(*) FROM g) x;
  WITH d AS (DELETE FROM fleet_attention_minute_deltas RETURNING *),
       g AS (INSERT INTO fleet_attention_minutes AS f (minute, shard, late, missed, hollow, zombie, failed)
             SELECT minute, shard, sum(late), sum(missed), sum(hollow), sum(zombie), sum(failed)
               FROM d GROUP BY minute, shard ORDER BY minute, shard
             ON CONFLICT ON CONSTRAINT fleet_attention_minutes_pkey DO UPDATE
               SET late = f.late + excluded.late, missed = f.missed + excluded.missed, hollow = f.hollow + excluded.hollow,
                   zombie = f.zombie + excluded.zombie, failed = f.failed + excluded.failed
             RETURNING 1)
  SELECT (SELECT count(*) FROM d) INTO attention_folded FROM (SELECT count(*) FROM g) x;
  DELETE FROM fleet_run_minutes WHERE minute < clock_timestamp() - interval '25 hours';
  DELETE FROM fleet_attention_minutes WHERE minute < clock_timestamp() - interval '25 hours';
  RETURN runs_folded + attention_folded;
END $$;
