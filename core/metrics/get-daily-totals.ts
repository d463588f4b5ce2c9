// The 90-day series of a scrape, from the daily summaries (core/retention/): fleet-wide by outcome, per schedule only
// for the opt-in detail tag. At 1,000 schedules that is 90,000 summary rows to add up (~100 ms, ~300 ms on a busy
// machine), for figures that change when the retention duty rolls up a day. So each console process keeps the answer
// for DAILY_TOTALS_MAX_AGE_MS (per database handle and tag): the 90-day series may lag the summaries by up to that long
// (README "Metrics"). Nothing another instance needs lives only here: each recomputes its own.
import type { Queryable } from "../db/pool";

export interface DailyTotalsRow {
  schedule: string | null;
  /** The schedule's team (null on the fleet-wide row). */
  team: string | null;
  team_id: string | null;
  total: number;
  on_time: number;
  late: number;
  failed: number;
  missed: number;
  skipped: number;
  hollow: number;
  lateness_max_ms: number | null;
}

/** How long a process reuses the 90-day totals (monotonic clock). */
export const DAILY_TOTALS_MAX_AGE_MS = 60_000;

const SQL = `
  SELECT CASE WHEN s.tags @> ARRAY[$1::text] THEN s.name END AS schedule,
         CASE WHEN s.tags @> ARRAY[$1::text] THEN t.name END AS team, CASE WHEN s.tags @> ARRAY[$1::text] THEN s.team_id END AS team_id, sum(d.total)::int AS total, sum(d.on_time)::int AS on_time,
         sum(d.late)::int AS late, sum(d.failed)::int AS failed, sum(d.missed)::int AS missed, sum(d.skipped)::int AS skipped,
         sum(d.hollow)::int AS hollow, max(d.lateness_max_ms) AS lateness_max_ms
    FROM run_daily_summaries d JOIN schedules s ON s.id = d.schedule_id JOIN teams t ON t.id = s.team_id
   WHERE s.deleted_at IS NULL AND d.day >= (now() AT TIME ZONE 'UTC')::date - 90
   GROUP BY 1, 2, 3`;

// Per database handle (the console's one pool; a test's own pool gets its own), then per tag.
const cache = new WeakMap<object, Map<string, { at: number; rows: DailyTotalsRow[] }>>();

export async function getDailyTotals(db: Queryable, detailTag: string): Promise<DailyTotalsRow[]> {
  let byTag = cache.get(db);
  if (!byTag) cache.set(db, (byTag = new Map()));
  const hit = byTag.get(detailTag);
  if (hit && performance.now() - hit.at < DAILY_TOTALS_MAX_AGE_MS) return hit.rows;
  const rows = (await db.query<DailyTotalsRow>(SQL, [detailTag])).rows;
  byTag.set(detailTag, { at: performance.now(), rows });
  return rows;
}
