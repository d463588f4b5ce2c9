// A schedule's calendars as its input names them ({calendar: "<name or id>", policy}) resolved to stored calendars,
// and written to schedule_calendars in their order. An unknown calendar is a 422 naming it.
import type { Queryable } from "../db/pool";
import { ValidationError } from "../errors";
import type { ScheduleCalendarsInput } from "./calendar-input";
import { findCalendarsByReference, type CalendarUse } from "./calendar-record";

export async function resolveScheduleCalendars(tx: Queryable, input: ScheduleCalendarsInput): Promise<CalendarUse[]> {
  const found = await findCalendarsByReference(
    tx,
    input.map((l) => l.calendar),
  );
  const fields: Record<string, string> = {};
  const seen = new Set<string>();
  const out: CalendarUse[] = [];
  input.forEach((l, i) => {
    const hit = found.get(l.calendar);
    if (!hit) fields[`calendars.${i}.calendar`] = `No calendar named "${l.calendar}"; create it on the Calendars page first`;
    else if (seen.has(hit.id)) fields[`calendars.${i}.calendar`] = `Calendar "${hit.name}" is listed twice`;
    else {
      seen.add(hit.id);
      out.push({ id: hit.id, name: hit.name, policy: l.policy });
    }
  });
  const problems = Object.values(fields);
  if (problems.length > 0) throw new ValidationError(problems.length === 1 ? problems[0]! : "Some calendars are not valid.", fields);
  return out;
}

/** Replaces the schedule's links with `links`, in order. */
export async function writeScheduleCalendars(tx: Queryable, scheduleId: string, links: readonly CalendarUse[]): Promise<void> {
  await tx.query(`DELETE FROM schedule_calendars WHERE schedule_id = $1`, [scheduleId]);
  if (links.length === 0) return;
  await tx.query(
    `INSERT INTO schedule_calendars (schedule_id, calendar_id, policy, position)
     SELECT $1, l.calendar_id, l.policy, l.position FROM unnest($2::uuid[], $3::text[], $4::int[]) AS l(calendar_id, policy, position)`,
    [scheduleId, links.map((l) => l.id), links.map((l) => l.policy), links.map((_, i) => i)],
  );
}

/** The schedule answer's calendars in the input's shape (schedules as code, the form). */
export function calendarReferences(links: readonly CalendarUse[] | undefined): { calendar: string; policy: CalendarUse["policy"] }[] {
  return (links ?? []).map((l) => ({ calendar: l.name, policy: l.policy }));
}
