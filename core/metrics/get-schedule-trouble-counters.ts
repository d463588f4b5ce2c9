// Per schedule, the trouble counters alerting reads with increase() (migration 20261204100000): how many runs ever
// became missed, hollow, failed (or timed out), or started late (lateness.ts's rule; backfills and re-runs excluded),
// for every live schedule, 0 included (a counter that first appears at 1 would hide its first increase from
// Prometheus). The counters' rows plus the deltas not folded yet, in one snapshot: exact whether or not a fold has
// run, and one row per schedule whatever the history (fleet-read-models.db.test.ts checks the counts).
import type { Queryable } from "../db/pool";

export interface ScheduleTroubleCounters {
  schedule: string;
  missed: number;
  hollow: number;
  failed: number;
  late: number;
}

const SQL = `
  SELECT s.name AS schedule, coalesce(t.missed, 0)::float8 AS missed, coalesce(t.hollow, 0)::float8 AS hollow,
         coalesce(t.failed, 0)::float8 AS failed, coalesce(t.late, 0)::float8 AS late
    FROM schedules s
    LEFT JOIN (SELECT u.schedule_id, sum(u.missed) AS missed, sum(u.hollow) AS hollow, sum(u.failed) AS failed, sum(u.late) AS late
                 FROM (SELECT schedule_id, missed, hollow, failed, late FROM schedule_trouble_counters
                       UNION ALL
                       SELECT schedule_id, missed, hollow, failed, late FROM schedule_trouble_deltas) u
                GROUP BY u.schedule_id) t ON t.schedule_id = s.id
   WHERE s.deleted_at IS NULL
   ORDER BY s.name`;

export async function getScheduleTroubleCounters(db: Queryable): Promise<ScheduleTroubleCounters[]> {
  const { rows } = await db.query<ScheduleTroubleCounters>(SQL);
  return rows;
}
