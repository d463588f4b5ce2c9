// What saving a calendar changes: for each live schedule that follows it, the next fires under the stored rules and
// under the new ones (fire-plan.ts, the planner's own function), listed when they differ — shown before the save.
import type { Queryable } from "../db/pool";
import { firePlanOf, planFires, type FireFate, type PlannedFire } from "../schedules/fire-plan";
import { SCHEDULE_COLUMNS, toSchedule, type Schedule, type ScheduleRow } from "../schedules/schedule-record";
import { loadScheduleCalendars, type CalendarRules } from "./calendar-rules";

/** How many next fires are compared per schedule. */
export const PREVIEW_FIRES = 10;
// Far enough for ten fires of a monthly or yearly trigger.
const PREVIEW_HORIZON_MS = 800 * 86_400_000;

export interface FireView {
  nominalAt: string;
  plannedAt: string;
  fate: FireFate;
  reason: string | null;
}

export interface CalendarChangeEffect {
  schedule: { id: string; name: string };
  before: FireView[];
  after: FireView[];
}

export interface CalendarChangePreview {
  /** Schedules whose next fires change, by name. */
  changed: CalendarChangeEffect[];
  /** Schedules that follow the calendar and whose next fires stay as they are. */
  unchanged: string[];
}

/** Live schedules that follow the calendar, in name order; `lock` takes their rows (an edit replans them). */
export async function schedulesFollowing(tx: Queryable, calendarId: string, opts: { lock?: boolean } = {}): Promise<Schedule[]> {
  const { rows } = await tx.query<ScheduleRow>(
    `SELECT ${SCHEDULE_COLUMNS} FROM schedules s
      WHERE s.deleted_at IS NULL AND s.id IN (SELECT schedule_id FROM schedule_calendars WHERE calendar_id = $1)
      ORDER BY s.name, s.id${opts.lock ? " FOR UPDATE OF s" : ""}`,
    [calendarId],
  );
  return rows.map(toSchedule);
}

export async function previewCalendarChange(
  tx: Queryable,
  schedules: readonly Schedule[],
  next: CalendarRules,
  now: Date,
): Promise<CalendarChangePreview> {
  const links = await loadScheduleCalendars(
    tx,
    schedules.map((s) => s.id),
  );
  const range = { from: now, until: new Date(now.getTime() + PREVIEW_HORIZON_MS) };
  const out: CalendarChangePreview = { changed: [], unchanged: [] };
  for (const s of schedules) {
    const current = links.get(s.id) ?? [];
    const changed = current.map((l) => (l.calendar.id === next.id ? { ...l, calendar: next } : l));
    const before = planFires(firePlanOf(s, current), range, { limit: PREVIEW_FIRES }).fires.map(fireView);
    const after = planFires(firePlanOf(s, changed), range, { limit: PREVIEW_FIRES }).fires.map(fireView);
    if (JSON.stringify(before) === JSON.stringify(after)) out.unchanged.push(s.name);
    else out.changed.push({ schedule: { id: s.id, name: s.name }, before, after });
  }
  return out;
}

export function fireView(f: PlannedFire): FireView {
  return { nominalAt: f.nominalAt.toISOString(), plannedAt: f.plannedAt.toISOString(), fate: f.fate, reason: f.reason };
}
