// What a business calendar says about an instant, and what a schedule's calendars do to one of its fires.
// Pure: no database, no clock. The planner, the timeline forecast and the load forecast all decide a fire's
// calendar fate here (through core/schedules/fire-plan.ts), so the forecast and the planner cannot disagree.
import type { Queryable } from "../db/pool";

export type CalendarPolicy = "skip" | "shift_previous" | "shift_next";

/** A named, shared calendar as the rules read it: the instants it blocks. */
export interface CalendarRules {
  id: string;
  name: string;
  /** IANA zone its dates, weekdays and windows are read in. */
  timezone: string;
  /** Whole days blocked, "YYYY-MM-DD" in the calendar's zone. */
  dates: string[];
  /** Weekdays blocked all day, 0 = Sunday … 6 = Saturday. */
  weekdays: number[];
  /** Recurring windows blocked, e.g. Sundays 02:00–04:00: weekdays 0–6, wall times "HH:MM" (end exclusive). */
  windows: { weekdays: number[]; start: string; end: string }[];
  /** Absolute blocked ranges (from an iCalendar import), ISO instants, end exclusive. */
  ranges: { start: string; end: string; summary?: string }[];
}

/** A schedule's reference to a calendar, with what to do with a fire the calendar blocks. */
export interface CalendarLink {
  calendar: CalendarRules;
  policy: CalendarPolicy;
}

export type CalendarOutcome =
  | { kind: "keep" }
  | { kind: "excluded"; calendar: CalendarRules; reason: string }
  | { kind: "shifted"; toMs: number; calendar: CalendarRules; reason: string };

/** The fate of a fire at `fireMs` under the schedule's calendars. (Placeholder until calendars land: keeps every fire.) */
export function applyCalendars(links: readonly CalendarLink[], fireMs: number): CalendarOutcome {
  void links;
  void fireMs;
  return { kind: "keep" };
}

/** Each schedule's calendar links, by schedule id (schedules without any are absent). (Placeholder: none yet.) */
export async function loadScheduleCalendars(db: Queryable, scheduleIds: readonly string[]): Promise<Map<string, CalendarLink[]>> {
  void db;
  void scheduleIds;
  return new Map();
}
