// A calendar as the API and the console see it, and the one place that maps a `calendars` row to it.
import type { Queryable } from "../db/pool";
import { NotFoundError } from "../errors";
import { isUuid } from "../schedules/schedule-record";
import { toCalendarRules, type CalendarRules } from "./calendar-rules";
import type { CalendarUse } from "./calendar-types";

export type { CalendarUse } from "./calendar-types";

/** A schedule following a calendar, as a calendar lists them and a schedule answer names its calendars. */

export interface Calendar extends CalendarRules {
  description: string;
  revision: number;
  createdBy: string | null;
  createdAt: Date;
  updatedAt: Date;
  /** The live schedules that follow it, by name. */
  schedules: CalendarUse[];
  /** The owning team (core/teams/): its id and name. */
  teamId: string;
  team: string;
  /** The teams its team shares it with (team null: every team); they see it read-only and their schedules may follow it. */
  sharedWith: { teamId: string | null; team: string | null }[];
}

const CALENDAR_COLUMNS = `c.id, c.name, c.description, c.timezone, c.rules, c.revision, c.created_by, c.created_at, c.updated_at,
  (SELECT coalesce(jsonb_agg(jsonb_build_object('id', s.id, 'name', s.name, 'policy', sc.policy) ORDER BY s.name), '[]'::jsonb)
     FROM schedule_calendars sc JOIN schedules s ON s.id = sc.schedule_id
    WHERE sc.calendar_id = c.id AND s.deleted_at IS NULL) AS schedules,
  c.team_id, (SELECT t.name FROM teams t WHERE t.id = c.team_id) AS team_name,
  (SELECT coalesce(jsonb_agg(jsonb_build_object('teamId', sh.shared_with_team_id, 'team', w.name) ORDER BY w.name NULLS FIRST), '[]'::jsonb)
     FROM team_shares sh LEFT JOIN teams w ON w.id = sh.shared_with_team_id
    WHERE sh.kind = 'calendar' AND sh.object_key = c.id::text AND sh.owner_team_id = c.team_id) AS shared_with`;

interface CalendarRow {
  id: string;
  name: string;
  description: string;
  timezone: string;
  rules: Omit<CalendarRules, "id" | "name" | "timezone">;
  revision: number;
  created_by: string | null;
  created_at: Date;
  updated_at: Date;
  schedules: CalendarUse[];
  team_id: string;
  team_name: string;
  shared_with: { teamId: string | null; team: string | null }[];
}

function toCalendar(r: CalendarRow): Calendar {
  return {
    ...toCalendarRules(r),
    description: r.description,
    revision: r.revision,
    createdBy: r.created_by,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    schedules: r.schedules,
    teamId: r.team_id,
    team: r.team_name,
    sharedWith: r.shared_with,
  };
}

/** Every calendar, by name. */
/**
 * teamIds: only these teams' calendars and the ones shared with them or with every team (core/teams/); null: all.
 */
export async function listCalendars(db: Queryable, teamIds: readonly string[] | null = null): Promise<Calendar[]> {
  const { rows } = await db.query<CalendarRow>(
    `SELECT ${CALENDAR_COLUMNS} FROM calendars c
      WHERE $1::uuid[] IS NULL OR c.team_id = ANY($1::uuid[])
         OR EXISTS (SELECT 1 FROM team_shares sh WHERE sh.kind = 'calendar' AND sh.object_key = c.id::text AND sh.owner_team_id = c.team_id
                     AND (sh.shared_with_team_id IS NULL OR sh.shared_with_team_id = ANY($1::uuid[])))
      ORDER BY lower(c.name)`,
    [teamIds ? [...teamIds] : null],
  );
  return rows.map(toCalendar);
}

export async function findCalendar(db: Queryable, id: string, opts: { lock?: boolean } = {}): Promise<Calendar | null> {
  if (!isUuid(id)) return null;
  const { rows } = await db.query<CalendarRow>(
    `SELECT ${CALENDAR_COLUMNS} FROM calendars c WHERE c.id = $1${opts.lock ? " FOR NO KEY UPDATE OF c" : ""}`,
    [id],
  );
  return rows[0] ? toCalendar(rows[0]) : null;
}

export async function getCalendarOrThrow(db: Queryable, id: string, opts: { lock?: boolean } = {}): Promise<Calendar> {
  const c = await findCalendar(db, id, opts);
  if (!c) throw new NotFoundError("Calendar", id);
  return c;
}

/** Calendars named (case-insensitively) or identified by the given references; the map is keyed by the reference. */
export async function findCalendarsByReference(db: Queryable, refs: readonly string[]): Promise<Map<string, { id: string; name: string }>> {
  const out = new Map<string, { id: string; name: string }>();
  if (refs.length === 0) return out;
  const { rows } = await db.query<{ id: string; name: string }>(
    `SELECT id, name FROM calendars WHERE lower(name) = ANY($1::text[]) OR id::text = ANY($2::text[])`,
    [refs.map((r) => r.toLowerCase()), refs.filter(isUuid).map((r) => r.toLowerCase())],
  );
  for (const ref of refs) {
    const hit = rows.find((r) => r.id === ref.toLowerCase()) ?? rows.find((r) => r.name.toLowerCase() === ref.toLowerCase());
    if (hit) out.set(ref, hit);
  }
  return out;
}

/** What the audit trail records of a calendar: its rules (ranges counted when there are many). */
export function calendarAuditView(c: Pick<Calendar, "name" | "description" | "timezone" | "dates" | "weekdays" | "windows" | "ranges">) {
  return {
    name: c.name,
    description: c.description,
    timezone: c.timezone,
    dates: c.dates,
    weekdays: c.weekdays,
    windows: c.windows,
    ranges: c.ranges.length <= 50 ? c.ranges : { count: c.ranges.length, first: c.ranges[0], last: c.ranges.at(-1) },
  };
}
