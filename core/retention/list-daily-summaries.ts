// A schedule's daily summaries (run_daily_summaries) for its page and the metrics: the last N UTC days before
// today, which outlive the runs themselves (core/retention/roll-up-daily-summaries.ts).
import type { Queryable } from "../db/pool";
import { getScheduleOrThrow } from "../schedules/schedule-record";

export interface DailySummary {
  day: string;
  total: number;
  onTime: number;
  late: number;
  succeeded: number;
  failed: number;
  missed: number;
  skipped: number;
  hollow: number;
  cancelled: number;
  latenessP50Ms: number | null;
  latenessP95Ms: number | null;
  latenessMaxMs: number | null;
}

export type DailyTotals = Omit<DailySummary, "day" | "latenessP50Ms" | "latenessP95Ms"> & { days: number };

export async function listDailySummaries(
  db: Queryable,
  scheduleId: string,
  days: number,
): Promise<{ scheduleId: string; days: DailySummary[]; totals: DailyTotals }> {
  await getScheduleOrThrow(db, scheduleId);
  const { rows } = await db.query<{
    day: string;
    total: number;
    on_time: number;
    late: number;
    succeeded: number;
    failed: number;
    missed: number;
    skipped: number;
    hollow: number;
    cancelled: number;
    lateness_p50_ms: number | null;
    lateness_p95_ms: number | null;
    lateness_max_ms: number | null;
  }>(
    `SELECT to_char(day, 'YYYY-MM-DD') AS day, total, on_time, late, succeeded, failed, missed, skipped, hollow, cancelled,
            lateness_p50_ms, lateness_p95_ms, lateness_max_ms
       FROM run_daily_summaries
      WHERE schedule_id = $1 AND day >= (now() AT TIME ZONE 'UTC')::date - $2::int
      ORDER BY day`,
    [scheduleId, days],
  );
  const list: DailySummary[] = rows.map((r) => ({
    day: r.day,
    total: r.total,
    onTime: r.on_time,
    late: r.late,
    succeeded: r.succeeded,
    failed: r.failed,
    missed: r.missed,
    skipped: r.skipped,
    hollow: r.hollow,
    cancelled: r.cancelled,
    latenessP50Ms: r.lateness_p50_ms,
    latenessP95Ms: r.lateness_p95_ms,
    latenessMaxMs: r.lateness_max_ms,
  }));
  const totals: DailyTotals = {
    days: list.length,
    total: 0,
    onTime: 0,
    late: 0,
    succeeded: 0,
    failed: 0,
    missed: 0,
    skipped: 0,
    hollow: 0,
    cancelled: 0,
    latenessMaxMs: null,
  };
  for (const d of list) {
    for (const k of ["total", "onTime", "late", "succeeded", "failed", "missed", "skipped", "hollow", "cancelled"] as const)
      totals[k] += d[k];
    if (d.latenessMaxMs !== null) totals.latenessMaxMs = Math.max(totals.latenessMaxMs ?? 0, d.latenessMaxMs);
  }
  return { scheduleId, days: list, totals };
}
