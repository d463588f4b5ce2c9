// Per schedule, the trouble counters alerting reads with increase() (migration 20261204100000): how many runs ever
// became missed, hollow, failed (or timed out), or started late (lateness.ts's rule; backfills and re-runs excluded),
// for every live schedule, 0 included (a counter that first appears at 1 would hide its first increase from
// Prometheus). The counters' rows plus the deltas not folded yet, in one snapshot: exact whether or not a fold has
// run, and one row per schedule whatever the history (fleet-read-models.db.test.ts checks the counts).
import type { Queryable } from "../db/pool";

export interface ScheduleTroubleCounters {
  schedule: string;
  /** The schedule's team's name (the `team` label) and id (for a per-team scrape). */
  team: string;
  team_id: string;
  missed: number;
  hollow: number;
  failed: number;
  late: number;
}

// The pending deltas are few (a fold every 2 s) and summed on their own; the counters are joined as they are (no
// aggregate over 1,000 bigint rows: sum(bigint) is numeric arithmetic, ×3 the cost of the join).
const SQL = `
  SELECT s.name AS schedule, t.name AS team, s.team_id, (coalesce(c.missed, 0) + coalesce(d.missed, 0))::float8 AS missed,
         (coalesce(c.hollow, 0) + coalesce(d.hollow, 0))::float8 AS hollow, (coalesce(c.failed, 0) + coalesce(d.failed, 0))::float8 AS failed,
         (coalesce(c.late, 0) + coalesce(d.late, 0))::float8 AS late
    FROM schedules s
    JOIN teams t ON t.id = s.team_id
    LEFT JOIN schedule_trouble_counters c ON c.schedule_id = s.id
    LEFT JOIN (SELECT schedule_id, sum(missed) AS missed, sum(hollow) AS hollow, sum(failed) AS failed, sum(late) AS late
                 FROM schedule_trouble_deltas GROUP BY schedule_id) d ON d.schedule_id = s.id
   WHERE s.deleted_at IS NULL`;

export async function getScheduleTroubleCounters(db: Queryable): Promise<ScheduleTroubleCounters[]> {
  const { rows } = await db.query<ScheduleTroubleCounters>(SQL);
  return rows;
}
