// Whether a calendar blocks an instant, and the block's extent. Everything is read in the calendar's zone in wall
// time (core/schedules/zone-clock.ts): a window "Sundays 02:00–04:00" on the day clocks spring forward over 02:00
// blocks 03:00–04:00, and on the day they fall back it blocks both passes of the repeated hour that it covers.
import { formatWall, formatWallDate, offsetAt, resolveWall, toWall } from "../schedules/zone-clock";
import type { CalendarRules } from "./calendar-types";

const DAY_MS = 86_400_000;
export const WEEKDAY_NAMES = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"] as const;

export interface CalendarBlock {
  /** "day": a blocked date or weekday (whole day); "window": a recurring window; "range": an absolute range. */
  kind: "day" | "window" | "range";
  /** First blocked instant of the block that holds the instant asked about. */
  startMs: number;
  /** First instant after it (end exclusive). */
  endMs: number;
  /** Why, as the end of a sentence: "2026-12-25 is a blocked day". */
  why: string;
}

/** "HH:MM" → minutes after midnight. */
export function minutesOf(hhmm: string): number {
  const [h, m] = hhmm.split(":").map(Number);
  return (h ?? 0) * 60 + (m ?? 0);
}

// The planner and the forecasts ask one calendar about many fires: its dates as a set and its ranges parsed and
// sorted once per rules object (an imported calendar holds thousands of ranges).
interface Indexed {
  dates: Set<string>;
  weekdays: Set<number>;
  ranges: { startMs: number; endMs: number; summary?: string }[];
  /** maxEnd[i]: the latest end among ranges[0..i], so "does any range that started by t still hold at t" is one lookup. */
  maxEnd: number[];
}
const indexes = new WeakMap<CalendarRules, Indexed>();

function indexOf(calendar: CalendarRules): Indexed {
  let index = indexes.get(calendar);
  if (!index) {
    const ranges = calendar.ranges
      .map((r) => ({ startMs: Date.parse(r.start), endMs: Date.parse(r.end), summary: r.summary }))
      .sort((a, b) => a.startMs - b.startMs);
    const maxEnd: number[] = [];
    ranges.forEach((r, i) => maxEnd.push(Math.max(r.endMs, maxEnd[i - 1] ?? -Infinity)));
    index = { dates: new Set(calendar.dates), weekdays: new Set(calendar.weekdays), ranges, maxEnd };
    indexes.set(calendar, index);
  }
  return index;
}

function rangeHolding(index: Indexed, instant: number): Indexed["ranges"][number] | null {
  // The last range starting at or before the instant.
  let lo = 0;
  let hi = index.ranges.length - 1;
  let last = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (index.ranges[mid]!.startMs <= instant) {
      last = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  for (let i = last; i >= 0 && index.maxEnd[i]! > instant; i--) {
    if (index.ranges[i]!.endMs > instant) return index.ranges[i]!;
  }
  return null;
}

// Intl is the cost of reading an instant's wall time (tens of µs a call under load). A UTC day whose offset is the same
// at both ends has that offset throughout (no zone changes its offset twice within a day): cached per zone and day.
const dayOffsets = new Map<string, Map<number, number | null>>();

/** toWall, with the offset of whole UTC days cached. */
export function wallOf(zone: string, instant: number): number {
  if (zone === "UTC") return instant;
  const day = Math.floor(instant / DAY_MS);
  let offsets = dayOffsets.get(zone);
  if (!offsets) dayOffsets.set(zone, (offsets = new Map()));
  let offset = offsets.get(day);
  if (offset === undefined) {
    const first = offsetAt(zone, day * DAY_MS);
    offset = first === offsetAt(zone, (day + 1) * DAY_MS - 1000) ? first : null;
    if (offsets.size > 50_000) offsets.clear();
    offsets.set(day, offset);
  }
  return offset === null ? toWall(zone, instant) : instant + offset;
}

/** Whether the calendar blocks the whole day of a wall value (a listed date or weekday). */
export function isBlockedDay(calendar: CalendarRules, wall: number): boolean {
  const index = indexOf(calendar);
  return index.dates.has(formatWallDate(wall)) || index.weekdays.has(new Date(wall).getUTCDay());
}

/** The block of `calendar` that holds `instant`, or null when the calendar allows it. Day blocks are checked first. */
export function findBlock(calendar: CalendarRules, instant: number): CalendarBlock | null {
  const zone = calendar.timezone;
  const wall = wallOf(zone, instant);
  const dayWall = Math.floor(wall / DAY_MS) * DAY_MS;
  const date = formatWallDate(wall);
  const weekday = new Date(dayWall).getUTCDay();

  const dayBlock = (why: string): CalendarBlock => ({
    kind: "day",
    startMs: wallStartInstant(zone, dayWall, instant),
    endMs: wallEndInstant(zone, dayWall + DAY_MS, instant),
    why,
  });
  const index = indexOf(calendar);
  if (index.dates.has(date)) return dayBlock(`${date} is a blocked day`);
  if (index.weekdays.has(weekday)) return dayBlock(`${WEEKDAY_NAMES[weekday]} is a blocked weekday (${date})`);

  const minute = (wall - dayWall) / 60_000;
  for (const w of calendar.windows) {
    const start = minutesOf(w.start);
    const end = minutesOf(w.end);
    // end <= start: the window runs over midnight into the next day (22:00–06:00).
    const overnight = end <= start;
    let opensOn: number | null = null;
    if (w.weekdays.includes(weekday) && minute >= start && (overnight || minute < end)) opensOn = dayWall;
    else if (overnight && minute < end && w.weekdays.includes((weekday + 6) % 7)) opensOn = dayWall - DAY_MS;
    if (opensOn === null) continue;
    const startWall = opensOn + start * 60_000;
    const endWall = opensOn + (overnight ? DAY_MS : 0) + end * 60_000;
    return {
      kind: "window",
      startMs: wallStartInstant(zone, startWall, instant),
      endMs: wallEndInstant(zone, endWall, instant),
      why: `inside the blocked window ${describeWindow(w)} ${zone}`,
    };
  }

  const r = rangeHolding(index, instant);
  if (!r) return null;
  const label = r.summary ? ` "${r.summary}"` : "";
  const span = `${formatWall(wallOf(zone, r.startMs)).slice(0, 16)}–${formatWall(wallOf(zone, r.endMs)).slice(0, 16)} ${zone}`;
  return { kind: "range", startMs: r.startMs, endMs: r.endMs, why: `inside the blocked range${label} ${span}` };
}

/** "Sundays 02:00–04:00", "Mon–Fri 22:00–06:00" style, for reasons and the console. */
export function describeWindow(w: { weekdays: number[]; start: string; end: string }): string {
  const days = [...w.weekdays].sort((a, b) => a - b);
  const names =
    days.length === 7
      ? "every day"
      : days.length === 1
        ? `${WEEKDAY_NAMES[days[0]!]}s`
        : days.map((d) => WEEKDAY_NAMES[d]!.slice(0, 3)).join(", ");
  return `${names} ${w.start}–${w.end}`;
}

// A wall time's instant for a block's start, seen from an instant inside the block: the latest instant showing that
// wall time not after `inside` (in a repeated hour, the pass the instant belongs to); in a gap, where the gap ends.
function wallStartInstant(zone: string, wall: number, inside: number): number {
  const r = resolveWall(zone, wall);
  if (r.kind === "single") return r.at;
  if (r.kind === "gap") return r.transition.at;
  return r.second <= inside ? r.second : r.first;
}

// The same for a block's end: the earliest instant showing that wall time after `inside`.
function wallEndInstant(zone: string, wall: number, inside: number): number {
  const r = resolveWall(zone, wall);
  if (r.kind === "single") return r.at;
  if (r.kind === "gap") return r.transition.at;
  return r.first > inside ? r.first : r.second;
}
