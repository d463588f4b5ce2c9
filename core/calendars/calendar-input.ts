// What an operator (form, API, import) sends to create or edit a calendar, with messages a person can act on.
import { z } from "zod";
import { timeZoneSchema } from "../schedules/trigger";
import { CALENDAR_POLICIES } from "./calendar-rules";

export const MAX_CALENDAR_DATES = 5000;
export const MAX_CALENDAR_WINDOWS = 100;
/** An imported calendar's recurring events are expanded over two years: a few thousand ranges at most in practice. */
export const MAX_CALENDAR_RANGES = 10_000;

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const CLOCK = /^([01]\d|2[0-3]):[0-5]\d$/;

const validDate = (s: string) => DATE.test(s) && new Date(`${s}T00:00:00Z`).toISOString().startsWith(s);

const dateSchema = z
  .string({ error: 'A blocked date must be a string "YYYY-MM-DD"' })
  .refine(validDate, { error: (i) => `Blocked date "${String(i.input)}" is not a date "YYYY-MM-DD" (e.g. 2026-12-25)` });

const weekdaySchema = z
  .number({ error: "A weekday must be a number, 0 = Sunday … 6 = Saturday" })
  .int({ error: "A weekday must be a whole number, 0 = Sunday … 6 = Saturday" })
  .min(0, { error: (i) => `Weekday ${String(i.input)} is not 0 (Sunday) … 6 (Saturday)` })
  .max(6, { error: (i) => `Weekday ${String(i.input)} is not 0 (Sunday) … 6 (Saturday)` });

const clockSchema = (label: string) =>
  z.string({ error: `${label} must be a wall time "HH:MM"` }).regex(CLOCK, {
    error: (i) => `${label} "${String(i.input)}" is not a wall time "HH:MM" (00:00–23:59)`,
  });

const sortedUnique = <T extends string | number>(list: T[]) => [...new Set(list)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

const isoInstant = (label: string) =>
  z.iso.datetime({ offset: true, error: `${label} must be an ISO 8601 date-time with an offset, e.g. 2026-12-24T18:00:00Z` });

export const calendarWindowSchema = z
  .strictObject(
    {
      weekdays: z.array(weekdaySchema).min(1, { error: "A window needs at least one weekday" }).transform(sortedUnique),
      start: clockSchema("Window start"),
      end: clockSchema("Window end"),
    },
    { error: 'A window must be {weekdays: [0], start: "02:00", end: "04:00"}' },
  )
  .refine((w) => w.start !== w.end, {
    error: "A window's start and end must differ (an end before the start runs over midnight into the next day)",
    path: ["end"],
  });

export const calendarRangeSchema = z
  .strictObject(
    {
      start: isoInstant("Range start"),
      end: isoInstant("Range end"),
      summary: z
        .string({ error: "Range summary must be a string" })
        .max(200, { error: "Range summary must be at most 200 characters" })
        .optional(),
    },
    { error: "A range must be {start, end} as ISO 8601 date-times" },
  )
  .refine((r) => Date.parse(r.end) > Date.parse(r.start), { error: "A range must end after it starts", path: ["end"] })
  // Stored normalised to UTC, so equal ranges compare equal and sort.
  .transform((r) => ({ ...r, start: new Date(r.start).toISOString(), end: new Date(r.end).toISOString() }));

const fields = {
  name: z
    .string({ error: "Name must be a string" })
    .trim()
    .min(1, { error: "Give the calendar a name, e.g. Holidays DE" })
    .max(80, { error: "Name must be at most 80 characters" })
    .regex(/^[^\p{Cc}]+$/u, { error: "Name must not contain control characters" }),
  description: z.string({ error: "Description must be a string" }).max(2000, { error: "Description must be at most 2000 characters" }),
  timezone: timeZoneSchema,
  dates: z
    .array(dateSchema, { error: 'Dates must be a list of "YYYY-MM-DD" strings' })
    .max(MAX_CALENDAR_DATES, { error: `At most ${MAX_CALENDAR_DATES} blocked dates` })
    .transform(sortedUnique),
  weekdays: z.array(weekdaySchema, { error: "Weekdays must be a list of numbers 0–6" }).transform(sortedUnique),
  windows: z
    .array(calendarWindowSchema, { error: "Windows must be a list" })
    .max(MAX_CALENDAR_WINDOWS, { error: `At most ${MAX_CALENDAR_WINDOWS} windows` }),
  ranges: z
    .array(calendarRangeSchema, { error: "Ranges must be a list" })
    .max(MAX_CALENDAR_RANGES, { error: `At most ${MAX_CALENDAR_RANGES} ranges` })
    .transform((list) => [...list].sort((a, b) => a.start.localeCompare(b.start))),
  /** Answer what the save would change (the schedules whose next fires move) and store nothing. */
  dryRun: z.boolean({ error: "dryRun must be true or false" }).optional(),
};

export const calendarInputSchema = z.strictObject({
  ...fields,
  /** The owning team, by name or id (core/teams/resolve-team.ts): by default the caller's only team. */
  team: z
    .string({ error: "Team must be a team's name or id" })
    .min(1, { error: "Team must be a team's name or id" })
    .max(100, { error: "Team must be a team's name or id" })
    .optional(),
  description: fields.description.default(""),
  dates: fields.dates.default([]),
  weekdays: fields.weekdays.default([]),
  windows: fields.windows.default([]),
  ranges: fields.ranges.default([]),
});
export type CalendarInput = z.output<typeof calendarInputSchema>;

/** An edit: any subset, plus the revision the editor saw (a stale one is refused with 409). */
export const calendarUpdateSchema = z
  .strictObject(fields)
  .partial()
  .extend({ revision: z.number({ error: "Revision must be the calendar's revision number you edited" }).int().min(1) });
export type CalendarUpdate = z.output<typeof calendarUpdateSchema>;

/** An iCalendar file to import as a new calendar. */
export const calendarImportSchema = z.strictObject({
  name: fields.name,
  description: fields.description.optional(),
  /** The zone the calendar's all-day events (dates) are read in; events with a TZID or UTC keep their own instants. */
  timezone: timeZoneSchema,
  ics: z
    .string({ error: "ics must be the text of an iCalendar (.ics) file" })
    .min(1, { error: "The .ics file is empty" })
    .max(1_500_000, { error: "The .ics file is larger than 1.5 MB; split it or leave out past events" }),
  dryRun: fields.dryRun,
});
export type CalendarImport = z.output<typeof calendarImportSchema>;

/** A schedule's calendars as the schedule input names them. */
export const scheduleCalendarsSchema = z
  .array(
    z.strictObject(
      {
        calendar: z
          .string({ error: "calendar must be the name (or id) of a calendar" })
          .trim()
          .min(1, { error: "Name the calendar" })
          .max(80, { error: "Calendar name must be at most 80 characters" }),
        policy: z.enum(CALENDAR_POLICIES, { error: `Calendar policy must be one of ${CALENDAR_POLICIES.join(", ")}` }),
      },
      { error: 'Each calendar must be {calendar: "<name>", policy: "skip" | "shift_previous" | "shift_next"}' },
    ),
    { error: 'Calendars must be a list of {calendar: "<name>", policy}' },
  )
  .max(20, { error: "At most 20 calendars per schedule" });
export type ScheduleCalendarsInput = z.output<typeof scheduleCalendarsSchema>;
