// What the console's header needs at a glance, read straight from the runs table on the database clock:
// what went wrong in the last hour. "Late" is lateness.ts's rule, as everywhere. Every count reads a partial
// index that holds only runs in trouble (or started late; 20261202700000_console_read_models), so the header
// costs the same over 21 k runs as over 420 k.
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

/** Counts of late, missed, hollow, zombie and failed runs whose moment (start or end) fell in the last `windowMinutes`. */
export async function getRunsOverview(db: Queryable, windowMinutes = 60): Promise<RunsOverview> {
  const { rows } = await db.query<AttentionCounts & { now: Date; running: number; queued: number }>(
    `WITH w AS (SELECT clock_timestamp() AS now, clock_timestamp() - make_interval(mins => $1) AS since)
     SELECT w.now,
       (SELECT count(*) FROM runs r JOIN schedules s ON s.id = r.schedule_id
         WHERE r.started_at >= w.since AND r.lateness_ms > ${LATE_AFTER_MS} AND ${lateSql("r.lateness_ms", "s.start_jitter_ms")})::int AS late,
       t.missed, t.hollow, t.zombie, t.failed,
       (SELECT count(*) FROM runs r WHERE r.state IN ('running', 'retrying'))::int AS running,
       (SELECT count(*) FROM runs r WHERE r.state = 'queued')::int AS queued
     FROM w, LATERAL (
       SELECT count(*) FILTER (WHERE r.state = 'missed')::int AS missed, count(*) FILTER (WHERE r.state = 'hollow')::int AS hollow,
              count(*) FILTER (WHERE r.state = 'zombie')::int AS zombie,
              count(*) FILTER (WHERE r.state IN ('failed', 'timed_out'))::int AS failed
         FROM runs r
        WHERE r.state IN ('missed', 'hollow', 'zombie', 'failed', 'timed_out') AND r.updated_at >= w.since) t`,
    [windowMinutes],
  );
  const r = rows[0]!;
  return {
    now: r.now,
    windowMinutes,
    lastHour: { late: r.late, missed: r.missed, hollow: r.hollow, zombie: r.zombie, failed: r.failed },
    running: r.running,
    queued: r.queued,
  };
}
