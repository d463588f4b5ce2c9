// What the console's header and schedules list need at a glance, read straight from the runs table on the
// database clock: what went wrong in the last hour, and per schedule its recent outcome, lateness and 24 h
// tallies. "Late" means started more than LATE_AFTER_MS after its due time (planned time plus the run's own
// start jitter), the same rule as classifyLateness.
import type { Queryable } from "../db/pool";
import { computeNextFireTimes } from "../schedules/compute-next-fire-times";
import { triggerSchema } from "../schedules/trigger";
import { LATE_AFTER_MS, TERMINAL_STATES } from "./run-states";

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

// Lateness beyond the run's own start jitter (due_at − planned_at), in ms.
const LATE_SQL = `(r.started_at IS NOT NULL AND r.lateness_ms - extract(epoch FROM r.due_at - r.planned_at) * 1000 > $1)`;

/** Counts of late, missed, hollow, zombie and failed runs whose moment (start or end) fell in the last `windowMinutes`. */
export async function getRunsOverview(db: Queryable, windowMinutes = 60): Promise<RunsOverview> {
  const { rows } = await db.query(
    `WITH w AS (SELECT clock_timestamp() AS now, clock_timestamp() - make_interval(mins => $2) AS since)
     SELECT w.now,
       (SELECT count(*) FROM runs r WHERE r.started_at >= w.since AND ${LATE_SQL})::int AS late,
       (SELECT count(*) FROM runs r WHERE r.state = 'missed' AND r.updated_at >= w.since)::int AS missed,
       (SELECT count(*) FROM runs r WHERE r.state = 'hollow' AND r.updated_at >= w.since)::int AS hollow,
       (SELECT count(*) FROM runs r WHERE r.state = 'zombie' AND r.updated_at >= w.since)::int AS zombie,
       (SELECT count(*) FROM runs r WHERE r.state IN ('failed', 'timed_out') AND r.updated_at >= w.since)::int AS failed,
       (SELECT count(*) FROM runs r WHERE r.state IN ('running', 'retrying'))::int AS running,
       (SELECT count(*) FROM runs r WHERE r.state = 'queued')::int AS queued
     FROM w`,
    [LATE_AFTER_MS, windowMinutes],
  );
  const r = rows[0];
  return {
    now: r.now,
    windowMinutes,
    lastHour: { late: r.late, missed: r.missed, hollow: r.hollow, zombie: r.zombie, failed: r.failed },
    running: r.running,
    queued: r.queued,
  };
}

export interface LatenessPoint {
  plannedAt: Date;
  latenessMs: number;
}

export interface ScheduleRunStats {
  scheduleId: string;
  lastRun: { runId: string; state: string; plannedAt: Date; finishedAt: Date | null } | null;
  /** Next occurrence: the planned (or queued) one at or after now, else the trigger's next fire. Null when none. */
  nextFireAt: Date | null;
  /** "planned": an occurrence row exists; "computed": from the trigger (beyond the planning horizon). */
  nextFireSource: "planned" | "computed" | null;
  last24h: { late: number; missed: number; hollow: number; failed: number; total: number };
  /** Lateness of the most recent started runs, oldest first. */
  lateness: LatenessPoint[];
}

/** Per live schedule: last outcome, next planned occurrence, 24 h tallies and a lateness series of `points` runs. */
export async function getScheduleRunStats(db: Queryable, points = 30): Promise<{ now: Date; schedules: ScheduleRunStats[] }> {
  const { rows } = await db.query(
    `SELECT s.id, s.trigger, s.created_at, clock_timestamp() AS now,
        last.id AS last_id, last.state AS last_state, last.planned_at AS last_planned_at, last.finished_at AS last_finished_at,
        (SELECT min(r.planned_at) FROM runs r
          WHERE r.schedule_id = s.id AND r.state IN ('planned', 'queued') AND r.planned_at >= clock_timestamp() - interval '1 second') AS next_planned_at,
        c.late, c.missed, c.hollow, c.failed, c.total,
        COALESCE(l.points, '[]'::json) AS lateness
       FROM schedules s
       LEFT JOIN LATERAL (
         SELECT r.id, r.state, r.planned_at, r.finished_at FROM runs r
          WHERE r.schedule_id = s.id AND r.state = ANY($3::text[])
          ORDER BY r.planned_at DESC LIMIT 1) last ON true
       LEFT JOIN LATERAL (
         SELECT count(*) FILTER (WHERE ${LATE_SQL})::int AS late,
                count(*) FILTER (WHERE r.state = 'missed')::int AS missed,
                count(*) FILTER (WHERE r.state = 'hollow')::int AS hollow,
                count(*) FILTER (WHERE r.state IN ('failed', 'timed_out', 'zombie'))::int AS failed,
                count(*)::int AS total
           FROM runs r
          WHERE r.schedule_id = s.id AND r.planned_at >= clock_timestamp() - interval '24 hours' AND r.planned_at <= clock_timestamp()) c ON true
       LEFT JOIN LATERAL (
         SELECT json_agg(json_build_object('plannedAt', x.planned_at, 'latenessMs', x.lateness_ms) ORDER BY x.planned_at) AS points
           FROM (SELECT r.planned_at, r.lateness_ms FROM runs r
                  WHERE r.schedule_id = s.id AND r.started_at IS NOT NULL AND r.lateness_ms IS NOT NULL
                  ORDER BY r.planned_at DESC LIMIT $2) x) l ON true
      WHERE s.deleted_at IS NULL
      ORDER BY s.name`,
    [LATE_AFTER_MS, points, TERMINAL_STATES],
  );
  return {
    now: rows[0]?.now ?? (await db.query("SELECT clock_timestamp() AS now")).rows[0].now,
    schedules: rows.map((r) => ({
      scheduleId: r.id,
      lastRun: r.last_id ? { runId: r.last_id, state: r.last_state, plannedAt: r.last_planned_at, finishedAt: r.last_finished_at } : null,
      ...nextFire(r.next_planned_at, r.trigger, r.now, r.created_at),
      last24h: { late: r.late, missed: r.missed, hollow: r.hollow, failed: r.failed, total: r.total },
      lateness: (r.lateness as { plannedAt: string; latenessMs: number }[]).map((p) => ({ plannedAt: new Date(p.plannedAt), latenessMs: p.latenessMs })),
    })),
  };
}

function nextFire(planned: Date | null, trigger: unknown, now: Date, createdAt: Date): Pick<ScheduleRunStats, "nextFireAt" | "nextFireSource"> {
  if (planned) return { nextFireAt: planned, nextFireSource: "planned" };
  const parsed = triggerSchema.safeParse(trigger);
  if (!parsed.success) return { nextFireAt: null, nextFireSource: null };
  const next = computeNextFireTimes(parsed.data, now, 1, { anchor: createdAt })[0];
  return next ? { nextFireAt: next.at, nextFireSource: "computed" } : { nextFireAt: null, nextFireSource: null };
}
