// The read models' changes made by the two hot statements themselves — the start of free runs (claim-free-runs.ts)
// and the success of free runs (finish-free-runs.ts) — instead of by the statement-level triggers on `runs`
// (vigil_runs_update_summaries, vigil_runs_trouble_update_rows), which re-read the transition tables, decide with
// bool_or over every changed pair which models can change, and compute each model from the old and the new rows.
// Each statement knows which transition it makes, so it appends only what that transition can change:
//   - a start (queued or retrying → running; lateness and started_at set if they were not): the console version;
//     the late count of the run's hour (schedule_hourly_outcomes) and of the schedule (schedule_trouble_deltas),
//     and the fleet's late starts (fleet_attention_minute_deltas), when it started more than 1 s (and more than the
//     schedule's start jitter) late. No last run (not finished), no fleet run counts (still in flight);
//   - a success (running → succeeded; lateness, started_at and the outcome classes unchanged): the console version,
//     the schedule's last run (schedule_last_runs) and the fleet's run counts (fleet_run_minute_deltas). No hourly,
//     trouble or attention change (no class is entered or left, and the late start was counted when it started).
// The formulas are the triggers', written for the transition: core/runs/read-model-deltas.db.test.ts replays the
// same row changes through the triggers and compares every model.
// The functions turn HOT_DELTAS_SETTING on for their statement (set_config, transaction-local: put back when they
// return, and undone with the savepoint or transaction of a call that fails; locks/under-run-locks.ts), and the two
// trigger functions return at once while it is on. The runs UPDATE in the
// function's statement is the only update of `runs` that can run while it is: the statement's other writes (attempts,
// run_events, the models) have no trigger that updates runs, and a caller's statement that updates runs fires its
// triggers after the function has returned.

/** Set (to 'on') only while a hot statement's function runs: the runs UPDATE triggers then leave its rows to it. */
export const HOT_DELTAS_SETTING = "vigil.hot_deltas";

/**
 * After the statement (PL/pgSQL): the console's version moves, as the trigger moves it for any change of a run's
 * state, when the statement returned a row — each row it returns is a run whose state it changed.
 */
export const CONSOLE_VERSION_BUMP_SQL = `IF FOUND THEN
    PERFORM nextval('vigil_console_version');
  END IF;`;

/**
 * CTEs appending the read-model changes of the starts in CTE `u` (one row per started run: id, schedule_id, planned_at,
 * kind, reruns; lateness_ms and started_at after the start, was_lateness_ms and was_started_at before it, and the
 * schedule's start_jitter_ms).
 */
export const START_DELTAS_SQL = `sd AS (
       -- Each start's late classes before and after (lateness.ts's rule: more than 1 s and the schedule's jitter late).
       SELECT u.schedule_id, u.planned_at, u.kind, u.reruns, u.lateness_ms, u.was_lateness_ms, u.started_at, u.was_started_at,
              vigil_fleet_shard(u.schedule_id) AS shard,
              coalesce(u.was_lateness_ms > u.start_jitter_ms + 1000, false) AS was_late,
              coalesce(u.lateness_ms > u.start_jitter_ms + 1000, false) AS late
         FROM u
        WHERE u.lateness_ms > 1000 OR u.was_lateness_ms > 1000
     ),
     sh AS (
       INSERT INTO schedule_hourly_outcomes AS h (schedule_id, hour, late, missed, hollow, failed)
       SELECT sd.schedule_id, date_trunc('hour', sd.planned_at), sum(sd.late::int - sd.was_late::int), 0, 0, 0
         FROM sd
        WHERE sd.late <> sd.was_late
        GROUP BY 1, 2
        ORDER BY 1, 2
       ON CONFLICT (schedule_id, hour) DO UPDATE SET late = h.late + excluded.late
       RETURNING h.schedule_id, h.hour, (xmax = 0) AS created
     ),
     shd AS (
       -- As the trigger does: a schedule's first trouble in a new hour drops its hours older than the longest window.
       DELETE FROM schedule_hourly_outcomes h USING sh
        WHERE sh.created AND h.schedule_id = sh.schedule_id AND h.hour < sh.hour - interval '8 days'
     ),
     st AS (
       -- Trouble counters count a late start once, and not for backfills and re-runs.
       INSERT INTO schedule_trouble_deltas (schedule_id, missed, hollow, failed, late)
       SELECT sd.schedule_id, 0, 0, 0, count(*)
         FROM sd
        WHERE sd.late AND NOT sd.was_late AND sd.kind <> 'backfill' AND sd.reruns = 0
          AND sd.lateness_ms IS DISTINCT FROM sd.was_lateness_ms
        GROUP BY 1
     ),
     sa AS (
       -- The fleet's late starts by the minute they started: the start's old contribution out, its new one in.
       INSERT INTO fleet_attention_minute_deltas (minute, shard, late, missed, hollow, zombie, failed)
       SELECT a.minute, a.shard, sum(a.late)::int, 0, 0, 0, 0
         FROM (SELECT date_trunc('minute', sd.started_at) AS minute, sd.shard, 1 AS late FROM sd WHERE sd.late AND sd.started_at IS NOT NULL
               UNION ALL
               SELECT date_trunc('minute', sd.was_started_at), sd.shard, -1 FROM sd WHERE sd.was_late AND sd.was_started_at IS NOT NULL) a
        WHERE a.minute >= clock_timestamp() - interval '25 hours'
        GROUP BY 1, 2
       HAVING sum(a.late) <> 0
     )`;

/** fleet_run_minute_deltas' value columns: the 57 counts of vigil_fleet_counts, then the 3 sums. */
const FLEET_RUN_COLUMNS = [...Array.from({ length: 57 }, (_, i) => `c${String(i + 1).padStart(2, "0")}`), "s1", "s2", "s3"];

/**
 * CTEs appending the read-model changes of the successes in CTE `ur` (one row per run that succeeded: id, schedule_id,
 * state, planned_at, kind, reruns, attempt, lateness_ms, finished_at, duration_ms).
 */
export const SUCCESS_DELTAS_SQL = `sl AS (
       INSERT INTO schedule_last_runs AS l (schedule_id, run_id, state, planned_at, finished_at, lateness_ms)
       SELECT DISTINCT ON (ur.schedule_id) ur.schedule_id, ur.id, ur.state, ur.planned_at, ur.finished_at, ur.lateness_ms
         FROM ur
        WHERE ur.planned_at <= clock_timestamp()
        ORDER BY ur.schedule_id, ur.planned_at DESC
       ON CONFLICT (schedule_id) DO UPDATE
         SET run_id = excluded.run_id, state = excluded.state, planned_at = excluded.planned_at, finished_at = excluded.finished_at,
             lateness_ms = excluded.lateness_ms
         WHERE l.planned_at <= excluded.planned_at
     ),
     sf AS (
       -- The fleet's counts of finished runs by planned minute (vigil_fleet_counts, vigil_fleet_run_values): a running
       -- run is not counted, so a success only adds its finished row.
       SELECT g.minute, g.shard, vigil_array_sum(vigil_fleet_counts(g.state, g.n, g.retries, g.lat_k, g.gap_k, g.dur_k)) AS counts,
              vigil_array_sum(ARRAY[g.lat, g.gap, g.dur]) AS sums
         FROM (SELECT date_trunc('minute', ur.planned_at) AS minute, vigil_fleet_shard(ur.schedule_id) AS shard, ur.state,
                      v.lat_k, v.gap_k, v.dur_k, count(*)::int AS n, sum(greatest(ur.attempt - 1, 0))::int AS retries,
                      coalesce(sum(v.lat), 0) AS lat, coalesce(sum(v.gap), 0) AS gap, coalesce(sum(v.dur), 0) AS dur
                 FROM ur
                CROSS JOIN LATERAL vigil_fleet_run_values(ur.kind, ur.reruns, ur.lateness_ms, ur.planned_at, ur.finished_at, ur.duration_ms) v
                -- vigil_fleet_run_upsert's condition: minutes older than the kept range are never read.
                WHERE date_trunc('minute', ur.planned_at) >= clock_timestamp() - interval '25 hours'
                GROUP BY 1, 2, 3, 4, 5, 6) g
        GROUP BY 1, 2
     ),
     sfi AS (
       INSERT INTO fleet_run_minute_deltas (minute, shard, ${FLEET_RUN_COLUMNS.join(", ")})
       SELECT sf.minute, sf.shard, ${FLEET_RUN_COLUMNS.map((c, i) => (i < 57 ? `sf.counts[${i + 1}]` : `sf.sums[${i - 56}]`)).join(", ")}
         FROM sf
     )`;
