// The schedules list: each live schedule with its next fire, last outcome, the last 24 hours' trouble
// (late, missed, hollow, failed) and its recent lateness values for a sparkline — one page at a time, searched
// and sorted on the server so 5,000 schedules cost what one page costs.
//
// The page is chosen first (filter, sort key, LIMIT/OFFSET over `schedules` joined with the small read models
// of 20261202700000_console_read_models: schedule_last_runs and schedule_hourly_outcomes), then the page's rows
// get their extras. Sort keys that need the runs table (next fire) are computed only when asked for.
// "Last 24 h" is counted by planned hour: the current hour and the 24 before it. Times are statement_timestamp()
// (the database clock, stable within the statement) so they bound index scans; clock_timestamp() is volatile
// and would make every per-schedule lookup walk all of its history.
import { dbNow, type Queryable } from "../db/pool";
import { computeNextFireTimes } from "./compute-next-fire-times";
import { NotFoundError } from "../errors";
import { SCHEDULE_SORTS, type ScheduleSort } from "./schedule-sorts";
import { SCHEDULE_COLUMNS, isUuid, toSchedule, type Schedule, type ScheduleRow } from "./schedule-record";

export interface ScheduleListItem extends Schedule {
  tags: string[];
  nextFireAt: Date | null;
  lastRun: { id: string; state: string; plannedAt: Date; finishedAt: Date | null; latenessMs: number | null } | null;
  counts24h: { late: number; missed: number; hollow: number; failed: number };
  /** Lateness (ms) of the most recent started runs, oldest first (at most RECENT_LATENESS). */
  recentLateness: number[];
}

export const RECENT_LATENESS = 30;
export { SCHEDULE_SORTS, type ScheduleSort };
/** The most one API page may hold (core callers may ask for more). */
export const MAX_SCHEDULE_PAGE = 500;

export interface ScheduleListQuery {
  /** Part of the name, handler or description (case-insensitive). */
  q?: string;
  /** Only schedules carrying every one of these tags. */
  tags?: string[];
  handler?: string;
  /** name: A→Z; next_fire: soonest first; last_state: worst last outcome first; trouble: most trouble in 24 h first. */
  sort?: ScheduleSort;
  /** Reverses the sort's natural direction. */
  desc?: boolean;
  offset?: number;
  limit?: number;
  id?: string;
  /** Only these teams' schedules (core/teams/team-access.ts visibleTeamIds); null or absent: every team. */
  teamIds?: readonly string[] | null;
}

export interface SchedulePage {
  schedules: ScheduleListItem[];
  total: number;
  offset: number;
  limit: number;
}

/** Worst first: what an operator wants to see at the top of "sort by last outcome". */
const LAST_STATE_RANK = ["zombie", "failed", "timed_out", "missed", "hollow", "cancelled", "skipped_overlap", "paused", "succeeded"];

const PAGE_SQL = `
  SELECT s.id, count(*) OVER ()::int AS total
    FROM schedules s
    LEFT JOIN schedule_last_runs l ON l.schedule_id = s.id
   WHERE s.deleted_at IS NULL
     AND ($1::uuid IS NULL OR s.id = $1::uuid)
     AND ($2::text IS NULL OR s.name ILIKE '%' || $2 || '%' OR s.handler ILIKE '%' || $2 || '%' OR s.description ILIKE '%' || $2 || '%')
     AND ($3::text[] IS NULL OR s.tags @> $3::text[])
     AND ($4::text IS NULL OR s.handler = $4)
     AND ($10::uuid[] IS NULL OR s.team_id = ANY($10::uuid[]))
   ORDER BY
     CASE $5
       WHEN 'next_fire' THEN extract(epoch FROM (
         SELECT min(r.planned_at) FROM runs r
          WHERE r.schedule_id = s.id AND r.kind = 'scheduled' AND r.state IN ('planned', 'queued') AND r.planned_at > statement_timestamp()))
       WHEN 'last_state' THEN coalesce(array_position($8::text[], l.state), 99)
       WHEN 'trouble' THEN -(SELECT coalesce(sum(h.late + h.missed + h.hollow + h.failed), 0) FROM schedule_hourly_outcomes h
                              WHERE h.schedule_id = s.id AND h.hour >= date_trunc('hour', statement_timestamp()) - interval '24 hours')
       ELSE 0 END * $9 NULLS LAST,
     CASE WHEN $9 < 0 AND $5 = 'name' THEN s.name END DESC,
     s.name, s.id
   LIMIT $6 OFFSET $7`;

/** A row of DETAIL_SQL: SCHEDULE_COLUMNS and the list's extras. */
interface DetailRow extends ScheduleRow {
  list_tags: string[] | null;
  next_fire_at: Date | null;
  /** The last ended run; the other last_* columns are set when this is. */
  last_id: string | null;
  last_state: string;
  last_planned_at: Date;
  last_finished_at: Date | null;
  last_lateness_ms: number | null;
  recent_lateness: number[] | null;
  late: number;
  missed: number;
  hollow: number;
  failed: number;
}

const DETAIL_SQL = `
  SELECT ${SCHEDULE_COLUMNS}, s.tags AS list_tags,
         (SELECT min(r.planned_at) FROM runs r
           WHERE r.schedule_id = s.id AND r.kind = 'scheduled' AND r.state IN ('planned', 'queued')
             AND r.planned_at > statement_timestamp()) AS next_fire_at,
         l.run_id AS last_id, l.state AS last_state, l.planned_at AS last_planned_at,
         l.finished_at AS last_finished_at, l.lateness_ms AS last_lateness_ms,
         (SELECT array_agg(x.lateness_ms ORDER BY x.planned_at)
            FROM (SELECT r.lateness_ms, r.planned_at FROM runs r
                   WHERE r.schedule_id = s.id AND r.planned_at <= statement_timestamp() AND r.lateness_ms IS NOT NULL
                   ORDER BY r.planned_at DESC LIMIT $2) x) AS recent_lateness,
         c.late, c.missed, c.hollow, c.failed
    FROM schedules s
    LEFT JOIN schedule_last_runs l ON l.schedule_id = s.id
    LEFT JOIN LATERAL (
          SELECT coalesce(sum(h.late), 0)::int AS late, coalesce(sum(h.missed), 0)::int AS missed,
                 coalesce(sum(h.hollow), 0)::int AS hollow, coalesce(sum(h.failed), 0)::int AS failed
            FROM schedule_hourly_outcomes h
           WHERE h.schedule_id = s.id AND h.hour >= date_trunc('hour', statement_timestamp()) - interval '24 hours') c ON true
   WHERE s.id = ANY($1::uuid[])`;

export async function listSchedulePage(db: Queryable, query: ScheduleListQuery = {}): Promise<SchedulePage> {
  const limit = Math.max(1, Math.min(query.limit ?? 50, 5000));
  const offset = Math.max(0, query.offset ?? 0);
  const sort = query.sort ?? "name";
  const { rows: page } = await db.query<{ id: string; total: number }>(PAGE_SQL, [
    query.id ?? null,
    query.q?.trim() || null,
    query.tags?.length ? query.tags : null,
    query.handler?.trim() || null,
    sort,
    limit,
    offset,
    LAST_STATE_RANK,
    query.desc ? -1 : 1,
    query.teamIds ? [...query.teamIds] : null,
  ]);
  const total = page[0]?.total ?? (offset > 0 ? await countSchedules(db, query) : 0);
  if (page.length === 0) return { schedules: [], total, offset, limit };
  const { rows } = await db.query<DetailRow>(DETAIL_SQL, [page.map((p) => p.id), RECENT_LATENESS]);
  const byId = new Map(rows.map((r) => [r.id, r]));
  const now = await dbNow(db);
  const schedules = page.flatMap(({ id }) => {
    const r = byId.get(id);
    // Deleted between the two statements: the next poll no longer lists it.
    if (!r) return [];
    const schedule = toSchedule(r);
    return [
      {
        ...schedule,
        tags: r.list_tags ?? [],
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
        counts24h: { late: r.late, missed: r.missed, hollow: r.hollow, failed: r.failed },
        recentLateness: r.recent_lateness ?? [],
      },
    ];
  });
  return { schedules, total, offset, limit };
}

/** Past the last page the window function has no row to report the total on. */
async function countSchedules(db: Queryable, query: ScheduleListQuery): Promise<number> {
  const { total } = await listSchedulePage(db, { ...query, offset: 0, limit: 1 });
  return total;
}

/** The first `limit` schedules (default 1,000) by name: for callers that want a plain list. */
export async function listSchedules(
  db: Queryable,
  opts: { q?: string; limit?: number; id?: string; tags?: string[]; teamIds?: readonly string[] | null } = {},
): Promise<ScheduleListItem[]> {
  const { limit, ...query } = opts;
  return (await listSchedulePage(db, { ...query, limit: Math.min(limit ?? 1000, 5000) })).schedules;
}

/** One live schedule with the list's extras (next fire, last outcome, counts, lateness). */
export async function getScheduleView(db: Queryable, id: string): Promise<ScheduleListItem> {
  const item = isUuid(id) ? (await listSchedules(db, { id }))[0] : undefined;
  if (!item) throw new NotFoundError("Schedule", id);
  return item;
}

/** When no occurrence is planned yet (beyond the horizon, or paused until a time): the trigger says. */
function nextFireFromTrigger(s: Schedule, now: Date): Date | null {
  if (s.paused && !s.paused.until) return null;
  const from = [now, s.plannedThrough, s.paused?.until].filter((d): d is Date => d instanceof Date).reduce((a, b) => (a > b ? a : b));
  try {
    // The fire plan's first fire that runs (fire-plan.ts: none after the end date, none before the start date).
    // Calendars are left to the occurrence rows: a list does not load every schedule's calendar links.
    if (s.endsAt && s.endsAt.getTime() <= from.getTime()) return null;
    const start = s.startsAt && s.startsAt.getTime() > from.getTime() ? new Date(s.startsAt.getTime() - 1) : from;
    const next = computeNextFireTimes(s.trigger, start, 1, { anchor: s.createdAt })[0]?.at ?? null;
    return next && s.endsAt && next.getTime() > s.endsAt.getTime() ? null : next;
  } catch {
    // A stored trigger that cannot be computed (the planner logs it and reports lag): the list still shows the rest.
    return null;
  }
}
