// A schedule's start lateness over time, for the chart on its page: one point per run that started
// (or should have by now), with the objectives to draw as lines.
import type { Queryable } from "../db/pool";
import { NotFoundError } from "../errors";

export interface LatenessPoint {
  runId: string;
  plannedAt: Date;
  startedAt: Date | null;
  /** started − planned; for a run not started yet (planned/queued), how late it is so far. */
  latenessMs: number;
  completionGapMs: number | null;
  state: string;
}

export interface ScheduleLateness {
  schedule: {
    id: string;
    name: string;
    latenessP95SloMs: number | null;
    latenessMaxMs: number | null;
    completionDeadlineSeconds: number | null;
    /** Nothing of this chart is older (backfills are left out): a young schedule's chart starts here. */
    createdAt: Date;
  };
  from: Date;
  to: Date;
  p95Ms: number | null;
  points: LatenessPoint[];
}

export const MAX_LATENESS_POINTS = 2000;

export async function getScheduleLateness(db: Queryable, scheduleId: string, hours: number): Promise<ScheduleLateness> {
  const { rows: s } = await db.query<{
    id: string;
    name: string;
    lateness_p95_slo_ms: number | null;
    lateness_max_ms: number | null;
    completion_deadline_seconds: number | null;
    created_at: Date;
    to: Date;
    from: Date;
  }>(
    `SELECT id, name, lateness_p95_slo_ms, lateness_max_ms, completion_deadline_seconds, created_at, now() AS to, now() - make_interval(hours => $2) AS from
       FROM schedules WHERE id = $1 AND deleted_at IS NULL`,
    [scheduleId, hours],
  );
  const schedule = s[0];
  if (!schedule) throw new NotFoundError("Schedule", scheduleId);
  const { rows } = await db.query<{
    id: string;
    planned_at: Date;
    started_at: Date | null;
    state: string;
    lateness_ms: number;
    gap_ms: number | null;
  }>(
    `SELECT * FROM (
       SELECT r.id, r.planned_at, r.started_at, r.state,
              coalesce(r.lateness_ms, (extract(epoch FROM now() - r.planned_at) * 1000)::bigint) AS lateness_ms,
              (extract(epoch FROM r.finished_at - r.planned_at) * 1000)::bigint AS gap_ms
         FROM runs r
        WHERE r.schedule_id = $1 AND r.kind <> 'backfill' AND r.reruns = 0
          AND r.planned_at > now() - make_interval(hours => $2) AND r.planned_at <= now()
          AND (r.started_at IS NOT NULL OR r.state IN ('planned', 'queued'))
        ORDER BY r.planned_at DESC
        LIMIT $3) x
      ORDER BY planned_at`,
    [scheduleId, hours, MAX_LATENESS_POINTS],
  );
  const started = rows
    .filter((r) => r.started_at !== null)
    .map((r) => Number(r.lateness_ms))
    .sort((a, b) => a - b);
  // Interpolated like percentile_cont(0.95), the definition the lateness SLO alert uses.
  const pos = 0.95 * (started.length - 1);
  const lo = Math.floor(pos);
  const p95 = started.length > 0 ? Math.round(started[lo]! + (started[Math.ceil(pos)]! - started[lo]!) * (pos - lo)) : null;
  return {
    schedule: {
      id: schedule.id,
      name: schedule.name,
      latenessP95SloMs: schedule.lateness_p95_slo_ms,
      latenessMaxMs: schedule.lateness_max_ms,
      completionDeadlineSeconds: schedule.completion_deadline_seconds,
      createdAt: schedule.created_at,
    },
    from: schedule.from,
    to: schedule.to,
    p95Ms: p95,
    points: rows.map((r) => ({
      runId: r.id,
      plannedAt: r.planned_at,
      startedAt: r.started_at,
      latenessMs: Number(r.lateness_ms),
      completionGapMs: r.gap_ms === null ? null : Number(r.gap_ms),
      state: r.state,
    })),
  };
}
