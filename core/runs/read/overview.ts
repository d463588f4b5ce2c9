// What the console's header needs at a glance, on the database clock: what went wrong in the last hour. "Late" is
// lateness.ts's rule, as everywhere. The counts come from the per-minute read model fleet_attention_minutes (late
// runs by the minute they started; missed / hollow / zombie / failed runs by the minute of their updated_at;
// migration 20261203100000_fleet_read_models) for the window's whole minutes, and straight from runs (partial
// indexes of runs in trouble or started late) for its first, partial minute: the same numbers as counting the
// runs (getRunsOverviewDirect, compared in fleet-read-models.db.test.ts), at a cost that does not grow with the fleet.
// The model is its folded minute rows plus the deltas not folded yet (migration 20261203900000).
import type { Queryable } from "../../db/pool";
import { LATE_AFTER_MS, lateSql } from "../lateness";

export interface AttentionCounts {
  late: number;
  missed: number;
  hollow: number;
  zombie: number;
  failed: number;
}

export interface RunsOverview {
  now: Date;
  windowMinutes: number;
  lastHour: AttentionCounts;
  /** Runs in flight right now. */
  running: number;
  queued: number;
}

/** The model keeps 25 hours; a longer window is counted over the runs. */
const MODEL_MAX_WINDOW_MINUTES = 24 * 60;

/** Counts of late, missed, hollow, zombie and failed runs whose moment (start or end) fell in the last `windowMinutes`. */
/**
 * teamIds: the counts of these teams' runs only (core/teams/team-access.ts visibleTeamIds), read from the runs
 * themselves — the fleet model (fleet_attention_minutes) counts every team's; null: the whole fleet.
 */
export async function getRunsOverview(db: Queryable, windowMinutes = 60, teamIds: readonly string[] | null = null): Promise<RunsOverview> {
  if (teamIds !== null) return getTeamRunsOverview(db, windowMinutes, teamIds);
  if (windowMinutes > MODEL_MAX_WINDOW_MINUTES) return getRunsOverviewDirect(db, windowMinutes);
  // Whole minutes from `lo` on come from the model; [since, lo) from runs.
  const { rows } = await db.query<AttentionCounts & { now: Date; running: number; queued: number }>(
    `WITH w AS (SELECT clock_timestamp() AS now, clock_timestamp() - make_interval(mins => $1) AS since),
          e AS (SELECT w.now, w.since, date_trunc('minute', w.since)
                         + CASE WHEN date_trunc('minute', w.since) = w.since THEN interval '0' ELSE interval '1 minute' END AS lo FROM w)
     SELECT e.now, m.late + x.late AS late, m.missed + t.missed AS missed, m.hollow + t.hollow AS hollow,
            m.zombie + t.zombie AS zombie, m.failed + t.failed AS failed,
       (SELECT count(*) FROM runs r WHERE r.state IN ('running', 'retrying'))::int AS running,
       (SELECT count(*) FROM runs r WHERE r.state = 'queued')::int AS queued
     FROM e,
     LATERAL (SELECT coalesce(sum(f.late), 0)::int AS late, coalesce(sum(f.missed), 0)::int AS missed, coalesce(sum(f.hollow), 0)::int AS hollow,
                     coalesce(sum(f.zombie), 0)::int AS zombie, coalesce(sum(f.failed), 0)::int AS failed
                FROM (SELECT minute, late, missed, hollow, zombie, failed FROM fleet_attention_minutes
                      UNION ALL
                      SELECT minute, late, missed, hollow, zombie, failed FROM fleet_attention_minute_deltas) f
               WHERE f.minute >= e.lo) m,
     LATERAL (SELECT count(*)::int AS late FROM runs r JOIN schedules s ON s.id = r.schedule_id
               WHERE r.started_at >= e.since AND r.started_at < e.lo AND r.lateness_ms > ${LATE_AFTER_MS}
                 AND ${lateSql("r.lateness_ms", "s.start_jitter_ms")}) x,
     LATERAL (${TROUBLE} AND r.updated_at < e.lo) t`,
    [windowMinutes],
  );
  return toOverview(rows[0]!, windowMinutes);
}

const TROUBLE = `
  SELECT count(*) FILTER (WHERE r.state = 'missed')::int AS missed, count(*) FILTER (WHERE r.state = 'hollow')::int AS hollow,
         count(*) FILTER (WHERE r.state = 'zombie')::int AS zombie,
         count(*) FILTER (WHERE r.state IN ('failed', 'timed_out'))::int AS failed
    FROM runs r
   WHERE r.state IN ('missed', 'hollow', 'zombie', 'failed', 'timed_out') AND r.updated_at >= e.since`;

/** The same counts over the runs themselves (every row of the window): for windows longer than the model keeps, and the tests. */
export async function getRunsOverviewDirect(db: Queryable, windowMinutes = 60): Promise<RunsOverview> {
  const { rows } = await db.query<AttentionCounts & { now: Date; running: number; queued: number }>(
    `WITH e AS (SELECT clock_timestamp() AS now, clock_timestamp() - make_interval(mins => $1) AS since)
     SELECT e.now,
       (SELECT count(*) FROM runs r JOIN schedules s ON s.id = r.schedule_id
         WHERE r.started_at >= e.since AND r.lateness_ms > ${LATE_AFTER_MS} AND ${lateSql("r.lateness_ms", "s.start_jitter_ms")})::int AS late,
       t.missed, t.hollow, t.zombie, t.failed,
       (SELECT count(*) FROM runs r WHERE r.state IN ('running', 'retrying'))::int AS running,
       (SELECT count(*) FROM runs r WHERE r.state = 'queued')::int AS queued
     FROM e, LATERAL (${TROUBLE}) t`,
    [windowMinutes],
  );
  return toOverview(rows[0]!, windowMinutes);
}

async function getTeamRunsOverview(db: Queryable, windowMinutes: number, teamIds: readonly string[]): Promise<RunsOverview> {
  const { rows } = await db.query<AttentionCounts & { now: Date; running: number; queued: number }>(
    `WITH e AS (SELECT clock_timestamp() AS now, clock_timestamp() - make_interval(mins => $1) AS since),
          ts AS (SELECT id, start_jitter_ms FROM schedules WHERE team_id = ANY($2::uuid[]))
     SELECT e.now,
       (SELECT count(*) FROM runs r JOIN ts s ON s.id = r.schedule_id
         WHERE r.started_at >= e.since AND r.lateness_ms > ${LATE_AFTER_MS} AND ${lateSql("r.lateness_ms", "s.start_jitter_ms")})::int AS late,
       t.missed, t.hollow, t.zombie, t.failed,
       (SELECT count(*) FROM runs r JOIN ts s ON s.id = r.schedule_id WHERE r.state IN ('running', 'retrying'))::int AS running,
       (SELECT count(*) FROM runs r JOIN ts s ON s.id = r.schedule_id WHERE r.state = 'queued')::int AS queued
     FROM e, LATERAL (
       SELECT count(*) FILTER (WHERE r.state = 'missed')::int AS missed, count(*) FILTER (WHERE r.state = 'hollow')::int AS hollow,
              count(*) FILTER (WHERE r.state = 'zombie')::int AS zombie,
              count(*) FILTER (WHERE r.state IN ('failed', 'timed_out'))::int AS failed
         FROM runs r JOIN ts s ON s.id = r.schedule_id
        WHERE r.state IN ('missed', 'hollow', 'zombie', 'failed', 'timed_out') AND r.updated_at >= e.since) t`,
    [windowMinutes, [...teamIds]],
  );
  return toOverview(rows[0]!, windowMinutes);
}

function toOverview(r: AttentionCounts & { now: Date; running: number; queued: number }, windowMinutes: number): RunsOverview {
  return {
    now: r.now,
    windowMinutes,
    lastHour: { late: r.late, missed: r.missed, hollow: r.hollow, zombie: r.zombie, failed: r.failed },
    running: r.running,
    queued: r.queued,
  };
}
