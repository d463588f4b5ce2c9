// The calendar form's state and its one mapping to the body the calendars API takes; field names match the API's, so
// the server's per-field errors ("windows.0.start", "dates.2") land next to the input that caused them.
import type { CalendarView } from "./calendars-queries";

export interface CalendarFormValues {
  name: string;
  description: string;
  timezone: string;
  weekdays: number[];
  /** Blocked dates, one per line (or comma-separated), "YYYY-MM-DD". */
  datesText: string;
  windows: { weekdays: number[]; start: string; end: string }[];
  ranges: { start: string; end: string; summary?: string }[];
  /** A new calendar's team id ("" = the caller's only team); an edit keeps the calendar's team. */
  team: string;
}

export const DEFAULT_CALENDAR_FORM: CalendarFormValues = {
  name: "",
  description: "",
  timezone: "UTC",
  weekdays: [],
  datesText: "",
  windows: [],
  ranges: [],
  team: "",
};

export function datesFromText(text: string): string[] {
  return text
    .split(/[\s,]+/)
    .map((d) => d.trim())
    .filter(Boolean);
}

export function calendarBodyFromForm(v: CalendarFormValues): Record<string, unknown> {
  return {
    name: v.name.trim(),
    description: v.description,
    timezone: v.timezone.trim(),
    weekdays: v.weekdays,
    dates: datesFromText(v.datesText),
    windows: v.windows,
    ranges: v.ranges,
    ...(v.team ? { team: v.team } : {}),
  };
}

export function formFromCalendar(c: CalendarView): CalendarFormValues {
  return {
    name: c.name,
    description: c.description,
    timezone: c.timezone,
    weekdays: c.weekdays,
    datesText: c.dates.join("\n"),
    windows: c.windows,
    ranges: c.ranges,
    team: "",
  };
}

/** Dates and ranges read from an .ics file, added to what the form holds (duplicates dropped). */
export function mergeImported(v: CalendarFormValues, dates: string[], ranges: CalendarFormValues["ranges"]): CalendarFormValues {
  const allDates = [...new Set([...datesFromText(v.datesText), ...dates])].sort();
  const key = (r: { start: string; end: string }) => `${r.start}/${r.end}`;
  const known = new Set(v.ranges.map(key));
  return { ...v, datesText: allDates.join("\n"), ranges: [...v.ranges, ...ranges.filter((r) => !known.has(key(r)))] };
}
