// The shapes calendars share: what a calendar blocks, how a schedule follows it, and what it does to a fire. Types
// only (and the policy list), so the rules, the record and the schedule record can all name them without a circle.

export type CalendarPolicy = "skip" | "shift_previous" | "shift_next";
export const CALENDAR_POLICIES = ["skip", "shift_previous", "shift_next"] as const satisfies readonly CalendarPolicy[];

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
  /** Recurring windows blocked, e.g. Sundays 02:00–04:00: weekdays 0–6, wall times "HH:MM" (end exclusive; an end at or
   * before the start runs over midnight into the next day). */
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
  | { kind: "excluded"; calendar: CalendarRules; policy: CalendarPolicy; reason: string }
  | { kind: "shifted"; toMs: number; calendar: CalendarRules; policy: CalendarPolicy; reason: string };

/** A schedule's reference to a calendar as the schedule answer shows it. */
export interface CalendarUse {
  id: string;
  name: string;
  policy: CalendarPolicy;
}
