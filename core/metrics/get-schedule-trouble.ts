// Per schedule, the trouble counts alerting needs over the metrics window (runs planned in it): missed, hollow,
// failed (failed or timed out) and late (lateness.ts's rule; backfills and re-runs excluded, as in the fleet's
// lateness histogram), only for schedules that have any. Reads only runs in trouble (runs_trouble_planned_idx:
// those states, or started more than 1 s late), never the window's ordinary runs.
import type { Queryable } from "../db/pool";
import { lateSql } from "../runs/lateness";

export interface ScheduleTrouble {
  schedule: string;
  missed: number;
  hollow: number;
  failed: number;
  late: number;
}

const SQL = `
  SELECT s.name AS schedule, x.missed, x.hollow, x.failed, x.late
    FROM (SELECT r.schedule_id, count(*) FILTER (WHERE r.state = 'missed')::int AS missed, count(*) FILTER (WHERE r.state = 'hollow')::int AS hollow,
                 count(*) FILTER (WHERE r.state IN ('failed', 'timed_out'))::int AS failed,
                 count(*) FILTER (WHERE r.kind <> 'backfill' AND r.reruns = 0 AND ${lateSql("r.lateness_ms", "j.start_jitter_ms")})::int AS late
            FROM runs r JOIN schedules j ON j.id = r.schedule_id
           WHERE r.planned_at > now() - make_interval(secs => $1) AND r.planned_at <= now()
             AND (r.state IN ('missed', 'hollow', 'failed', 'timed_out') OR r.lateness_ms > 1000)
           GROUP BY r.schedule_id) x
    JOIN schedules s ON s.id = x.schedule_id
   WHERE x.missed + x.hollow + x.failed + x.late > 0`;

export async function getScheduleTrouble(db: Queryable, windowSeconds: number): Promise<ScheduleTrouble[]> {
  const { rows } = await db.query<ScheduleTrouble>(SQL, [windowSeconds]);
  return rows;
}
