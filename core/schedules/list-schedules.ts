// The schedules list: each live schedule with its next fire, last outcome, the last 24 hours' trouble
// (late, missed, hollow, failed) and its recent lateness values for a sparkline. Three set-based queries,
// however many schedules; all times relative to the database clock.
import { dbNow, getPool, type Queryable } from "../db/pool";
import { lateSql } from "../runs/lateness";
import { TERMINAL_STATES } from "../runs/run-states";
import { computeNextFireTimes } from "./compute-next-fire-times";
import { NotFoundError } from "../errors";
import { SCHEDULE_COLUMNS, isUuid, toSchedule, type Schedule, type ScheduleRow } from "./schedule-record";

export interface ScheduleListItem extends Schedule {
  nextFireAt: Date | null;
  lastRun: { id: string; state: string; plannedAt: Date; finishedAt: Date | null; latenessMs: number | null } | null;
  counts24h: { late: number; missed: number; hollow: number; failed: number };
  /** Lateness (ms) of the most recent started runs, oldest first (at most RECENT_LATENESS). */
  recentLateness: number[];
}

export const RECENT_LATENESS = 30;

/** A row of listSchedules' query: SCHEDULE_COLUMNS and the list's extras. */
interface ListRow extends ScheduleRow {
  next_fire_at: Date | null;
  /** The last ended run; the other last_* columns are set when this is. */
  last_id: string | null;
  last_state: string;
  last_planned_at: Date;
  last_finished_at: Date | null;
  last_lateness_ms: number | null;
  recent_lateness: number[] | null;
}

export async function listSchedules(
  opts: {
    db?: Queryable;
    q?: string;
    limit?: number;
    id?: string;
    /** Only schedules having every one of these tags. */ tags?: string[];
  } = {},
): Promise<ScheduleListItem[]> {
  const db = opts.db ?? getPool();
  const { rows } = await db.query<ListRow>(
    `SELECT ${SCHEDULE_COLUMNS},
            (SELECT min(r.planned_at) FROM runs r
              WHERE r.schedule_id = s.id AND r.kind = 'scheduled' AND r.state IN ('planned', 'queued')
                AND r.planned_at > clock_timestamp()) AS next_fire_at,
            last.id AS last_id, last.state AS last_state, last.planned_at AS last_planned_at,
            last.finished_at AS last_finished_at, last.lateness_ms AS last_lateness_ms,
            (SELECT array_agg(x.lateness_ms ORDER BY x.planned_at)
               FROM (SELECT r.lateness_ms, r.planned_at FROM runs r
                      WHERE r.schedule_id = s.id AND r.planned_at <= clock_timestamp() AND r.lateness_ms IS NOT NULL
                      ORDER BY r.planned_at DESC LIMIT $3) x) AS recent_lateness
       FROM schedules s
       LEFT JOIN LATERAL (
             SELECT r.id, r.state, r.planned_at, r.finished_at, r.lateness_ms FROM runs r
              WHERE r.schedule_id = s.id AND r.state = ANY($4::text[]) AND r.planned_at <= clock_timestamp()
              ORDER BY r.planned_at DESC LIMIT 1) last ON true
      WHERE s.deleted_at IS NULL AND ($5::uuid IS NULL OR s.id = $5::uuid) AND ($1::text IS NULL OR s.name ILIKE '%' || $1 || '%' OR s.description ILIKE '%' || $1 || '%')
        AND ($6::text[] IS NULL OR s.tags @> $6::text[])
      ORDER BY s.name
      LIMIT $2`,
    [
      opts.q?.trim() || null,
      Math.min(opts.limit ?? 1000, 5000),
      RECENT_LATENESS,
      TERMINAL_STATES,
      opts.id ?? null,
      opts.tags?.length ? opts.tags : null,
    ],
  );
  const counts = await counts24h(
    db,
    rows.map((r) => r.id),
  );
  const now = await dbNow(db);
  return rows.map((r) => {
    const schedule = toSchedule(r);
    return {
      ...schedule,
      nextFireAt: r.next_fire_at ?? nextFireFromTrigger(schedule, now),
      lastRun: r.last_id
        ? {
            id: r.last_id,
            state: r.last_state,
            plannedAt: r.last_planned_at,
            finishedAt: r.last_finished_at,
            latenessMs: r.last_lateness_ms,
          }
        : null,
      counts24h: counts.get(r.id) ?? { late: 0, missed: 0, hollow: 0, failed: 0 },
      recentLateness: r.recent_lateness ?? [],
    };
  });
}

/** One live schedule with the list's extras (next fire, last outcome, counts, lateness). */
export async function getScheduleView(id: string, db?: Queryable): Promise<ScheduleListItem> {
  const item = isUuid(id) ? (await listSchedules({ db, id }))[0] : undefined;
  if (!item) throw new NotFoundError("Schedule", id);
  return item;
}

/** When no occurrence is planned yet (beyond the horizon, or paused until a time): the trigger says. */
function nextFireFromTrigger(s: Schedule, now: Date): Date | null {
  if (s.paused && !s.paused.until) return null;
  const from = [now, s.plannedThrough, s.paused?.until].filter((d): d is Date => d instanceof Date).reduce((a, b) => (a > b ? a : b));
  try {
    return computeNextFireTimes(s.trigger, from, 1, { anchor: s.createdAt })[0]?.at ?? null;
  } catch {
    // A stored trigger that cannot be computed (the planner logs it and reports lag): the list still shows the rest.
    return null;
  }
}

async function counts24h(db: Queryable, ids: string[]): Promise<Map<string, ScheduleListItem["counts24h"]>> {
  if (ids.length === 0) return new Map();
  const { rows } = await db.query<{ schedule_id: string; late: number; missed: number; hollow: number; failed: number }>(
    `SELECT r.schedule_id,
            count(*) FILTER (WHERE ${lateSql("r.lateness_ms", "s.start_jitter_ms")})::int AS late,
            count(*) FILTER (WHERE r.state = 'missed')::int AS missed,
            count(*) FILTER (WHERE r.state = 'hollow')::int AS hollow,
            count(*) FILTER (WHERE r.state IN ('failed', 'timed_out', 'zombie'))::int AS failed
       FROM runs r JOIN schedules s ON s.id = r.schedule_id
      WHERE r.schedule_id = ANY($1::uuid[])
        AND r.planned_at > clock_timestamp() - interval '24 hours' AND r.planned_at <= clock_timestamp()
      GROUP BY r.schedule_id`,
    [ids],
  );
  return new Map(rows.map((r) => [r.schedule_id, { late: r.late, missed: r.missed, hollow: r.hollow, failed: r.failed }]));
}
