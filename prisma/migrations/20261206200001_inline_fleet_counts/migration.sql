-- vigil_fleet_counts (20261203100000) as one array expression instead of an aggregate over generate_series(1, 57): an
-- SQL function with an aggregate is never inlined, so every group of every runs UPDATE statement trigger (and of the
-- fleet read) ran it through the SQL-function executor (0.2–0.3 ms a call in bench/fanout.bench.ts's profile, ~0.7
-- calls per run in a fan-out). This one is inlined into the calling query. Same value for every input: element i ≤ 13
-- is n when `state` is the i-th state (0 for an unknown or NULL state), 14 the retries, 15–29 n in lateness bucket
-- lat_k, 30–43 in gap bucket gap_k, 44–57 in duration bucket dur_k, 0 elsewhere
-- (core/metrics/fleet-read-models.db.test.ts compares the model with the runs).
CREATE OR REPLACE FUNCTION vigil_fleet_counts(state TEXT, n INTEGER, retries INTEGER, lat_k INTEGER, gap_k INTEGER, dur_k INTEGER)
    RETURNS INTEGER[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT ARRAY[
         CASE WHEN state = 'planned' THEN n ELSE 0 END, CASE WHEN state = 'queued' THEN n ELSE 0 END, CASE WHEN state = 'running' THEN n ELSE 0 END,
         CASE WHEN state = 'retrying' THEN n ELSE 0 END, CASE WHEN state = 'succeeded' THEN n ELSE 0 END, CASE WHEN state = 'failed' THEN n ELSE 0 END,
         CASE WHEN state = 'timed_out' THEN n ELSE 0 END, CASE WHEN state = 'cancelled' THEN n ELSE 0 END, CASE WHEN state = 'skipped_overlap' THEN n ELSE 0 END,
         CASE WHEN state = 'missed' THEN n ELSE 0 END, CASE WHEN state = 'paused' THEN n ELSE 0 END, CASE WHEN state = 'hollow' THEN n ELSE 0 END,
         CASE WHEN state = 'zombie' THEN n ELSE 0 END, retries, CASE WHEN lat_k = 1 THEN n ELSE 0 END,
         CASE WHEN lat_k = 2 THEN n ELSE 0 END, CASE WHEN lat_k = 3 THEN n ELSE 0 END, CASE WHEN lat_k = 4 THEN n ELSE 0 END,
         CASE WHEN lat_k = 5 THEN n ELSE 0 END, CASE WHEN lat_k = 6 THEN n ELSE 0 END, CASE WHEN lat_k = 7 THEN n ELSE 0 END,
         CASE WHEN lat_k = 8 THEN n ELSE 0 END, CASE WHEN lat_k = 9 THEN n ELSE 0 END, CASE WHEN lat_k = 10 THEN n ELSE 0 END,
         CASE WHEN lat_k = 11 THEN n ELSE 0 END, CASE WHEN lat_k = 12 THEN n ELSE 0 END, CASE WHEN lat_k = 13 THEN n ELSE 0 END,
         CASE WHEN lat_k = 14 THEN n ELSE 0 END, CASE WHEN lat_k = 15 THEN n ELSE 0 END, CASE WHEN gap_k = 1 THEN n ELSE 0 END,
         CASE WHEN gap_k = 2 THEN n ELSE 0 END, CASE WHEN gap_k = 3 THEN n ELSE 0 END, CASE WHEN gap_k = 4 THEN n ELSE 0 END,
         CASE WHEN gap_k = 5 THEN n ELSE 0 END, CASE WHEN gap_k = 6 THEN n ELSE 0 END, CASE WHEN gap_k = 7 THEN n ELSE 0 END,
         CASE WHEN gap_k = 8 THEN n ELSE 0 END, CASE WHEN gap_k = 9 THEN n ELSE 0 END, CASE WHEN gap_k = 10 THEN n ELSE 0 END,
         CASE WHEN gap_k = 11 THEN n ELSE 0 END, CASE WHEN gap_k = 12 THEN n ELSE 0 END, CASE WHEN gap_k = 13 THEN n ELSE 0 END,
         CASE WHEN gap_k = 14 THEN n ELSE 0 END, CASE WHEN dur_k = 1 THEN n ELSE 0 END, CASE WHEN dur_k = 2 THEN n ELSE 0 END,
         CASE WHEN dur_k = 3 THEN n ELSE 0 END, CASE WHEN dur_k = 4 THEN n ELSE 0 END, CASE WHEN dur_k = 5 THEN n ELSE 0 END,
         CASE WHEN dur_k = 6 THEN n ELSE 0 END, CASE WHEN dur_k = 7 THEN n ELSE 0 END, CASE WHEN dur_k = 8 THEN n ELSE 0 END,
         CASE WHEN dur_k = 9 THEN n ELSE 0 END, CASE WHEN dur_k = 10 THEN n ELSE 0 END, CASE WHEN dur_k = 11 THEN n ELSE 0 END,
         CASE WHEN dur_k = 12 THEN n ELSE 0 END, CASE WHEN dur_k = 13 THEN n ELSE 0 END, CASE WHEN dur_k = 14 THEN n ELSE 0 END]::int[]
$$;
