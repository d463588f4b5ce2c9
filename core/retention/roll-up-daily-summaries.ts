// Daily per-schedule summaries (run_daily_summaries): what a schedule's runs of one UTC day (by planned time) did,
// kept long after the runs expire. The first pass of each UTC day recomputes the two days before it (outcomes of
// recent runs still change: retries, re-runs, late finishes; a day's figures are final once the day after it has
// ended) and catches up every day not summarized yet; later passes that day do nothing. A (schedule, day) whose runs
// have started to expire is frozen, never recomputed from what is left. "late" is core/runs/lateness.ts's rule;
// lateness figures and on-time/late counts leave out manual runs, backfills and re-runs, as every lateness measure does.
import type { Queryable } from "../db/pool";
import { lateSql } from "../runs/lateness";
import { utcCutoffSql } from "./expire-runs";

/** Days recomputed on every pass (today is not summarized until it is over). */
export const RESUMMARIZED_DAYS = 2;

/**
 * Summarizes every day from `fromDay` (or the oldest run's day when null) to yesterday; returns the UTC day before
 * which everything is summarized (today), to be passed back as `fromDay` next time.
 */
export async function rollUpDailySummaries(
  db: Queryable,
  o: { fromDay: string | null; defaultRunsDays: number },
): Promise<{ summarizedBefore: string; days: number; rows: number }> {
  const { rows: r0 } = await db.query<{ from_day: string | null; today: string }>(
    `SELECT to_char(least(coalesce($1::date, (SELECT (min(planned_at) AT TIME ZONE 'UTC')::date FROM runs)),
                          (now() AT TIME ZONE 'UTC')::date - $2::int), 'YYYY-MM-DD') AS from_day,
            to_char((now() AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD') AS today`,
    [o.fromDay, RESUMMARIZED_DAYS],
  );
  const { from_day: fromDay, today } = r0[0]!;
  if (o.fromDay !== null && o.fromDay >= today) return { summarizedBefore: o.fromDay, days: 0, rows: 0 };
  let days = 0;
  let rows = 0;
  for (let day = fromDay!; day < today; day = nextDay(day)) {
    rows += await summarizeDay(db, day, o.defaultRunsDays);
    days++;
  }
  return { summarizedBefore: today, days, rows };
}

function nextDay(day: string): string {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + 1);
  return d.toISOString().slice(0, 10);
}

const LATENESS_COUNTED = `r.kind = 'scheduled' AND r.reruns = 0 AND r.lateness_ms IS NOT NULL`;

async function summarizeDay(db: Queryable, day: string, defaultRunsDays: number): Promise<number> {
  const { rowCount } = await db.query(
    `INSERT INTO run_daily_summaries AS d (schedule_id, day, total, on_time, late, succeeded, failed, missed, skipped, hollow, cancelled,
                                           lateness_p50_ms, lateness_p95_ms, lateness_max_ms, computed_at)
     SELECT r.schedule_id, $1::date, count(*),
            count(*) FILTER (WHERE ${LATENESS_COUNTED} AND NOT ${lateSql("r.lateness_ms", "s.start_jitter_ms")}),
            count(*) FILTER (WHERE ${LATENESS_COUNTED} AND ${lateSql("r.lateness_ms", "s.start_jitter_ms")}),
            count(*) FILTER (WHERE r.state = 'succeeded'),
            count(*) FILTER (WHERE r.state IN ('failed', 'timed_out', 'zombie')),
            count(*) FILTER (WHERE r.state = 'missed'),
            count(*) FILTER (WHERE r.state IN ('skipped_overlap', 'paused', 'excluded')),
            count(*) FILTER (WHERE r.state = 'hollow'),
            count(*) FILTER (WHERE r.state = 'cancelled'),
            round(percentile_cont(0.5) WITHIN GROUP (ORDER BY r.lateness_ms) FILTER (WHERE ${LATENESS_COUNTED}))::int,
            round(percentile_cont(0.95) WITHIN GROUP (ORDER BY r.lateness_ms) FILTER (WHERE ${LATENESS_COUNTED}))::int,
            max(r.lateness_ms) FILTER (WHERE ${LATENESS_COUNTED}),
            clock_timestamp()
       FROM runs r JOIN schedules s ON s.id = r.schedule_id
      WHERE r.planned_at >= $1::date::timestamp AT TIME ZONE 'UTC'
        AND r.planned_at < ($1::date + 1)::timestamp AT TIME ZONE 'UTC'
        -- Frozen: this schedule's runs of the day may already be expiring and a summary exists.
        AND ($1::date::timestamp AT TIME ZONE 'UTC' >= ${utcCutoffSql("coalesce(s.retention_days, $2::int)")}
             OR coalesce(s.retention_days, $2::int) = 0
             OR NOT EXISTS (SELECT 1 FROM run_daily_summaries x WHERE x.schedule_id = r.schedule_id AND x.day = $1::date))
      GROUP BY r.schedule_id
     ON CONFLICT (schedule_id, day) DO UPDATE SET
       total = EXCLUDED.total, on_time = EXCLUDED.on_time, late = EXCLUDED.late, succeeded = EXCLUDED.succeeded,
       failed = EXCLUDED.failed, missed = EXCLUDED.missed, skipped = EXCLUDED.skipped, hollow = EXCLUDED.hollow,
       cancelled = EXCLUDED.cancelled, lateness_p50_ms = EXCLUDED.lateness_p50_ms, lateness_p95_ms = EXCLUDED.lateness_p95_ms,
       lateness_max_ms = EXCLUDED.lateness_max_ms, computed_at = EXCLUDED.computed_at`,
    [day, defaultRunsDays],
  );
  return rowCount ?? 0;
}
