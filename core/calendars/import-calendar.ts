// A new calendar from an iCalendar (.ics) file: read with ical.js (import-ics.ts), stored like one made in the
// console. A file that cannot be read is refused (422 invalid_ics) and nothing is stored.
import type { Actor } from "../auth/roles";
import { dbNow, type Queryable } from "../db/pool";
import { parseOrThrow } from "../schedules/validate-schedule-input";
import { calendarImportSchema, calendarInputSchema } from "./calendar-input";
import { parseIcs } from "./import-ics";
import { createParsedCalendar, type CalendarSaveResult } from "./save-calendar";

export async function importCalendar(
  input: unknown,
  actor: Actor,
  opts: { db?: Queryable } = {},
): Promise<CalendarSaveResult & { imported: { events: number; skipped: number; dates: number; ranges: number } }> {
  const v = parseOrThrow(calendarImportSchema, input);
  const read = parseIcs(v.ics, { timezone: v.timezone, from: await dbNow(opts.db) });
  const calendar = parseOrThrow(calendarInputSchema, {
    name: v.name,
    description: v.description ?? "",
    timezone: v.timezone,
    dates: read.dates,
    ranges: read.ranges,
    dryRun: v.dryRun,
  });
  const imported = { events: read.events, skipped: read.skipped, dates: read.dates.length, ranges: read.ranges.length };
  const result = await createParsedCalendar(calendar, actor, { db: opts.db, audit: { importedFrom: "ics", ...imported } });
  return { ...result, imported };
}
