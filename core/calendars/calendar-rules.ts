// What a business calendar says about an instant, and what a schedule's calendars do to one of its fires.
// Pure: no database, no clock. The planner, the timeline forecast and the load forecast all decide a fire's
// calendar fate here (through core/schedules/fire-plan.ts), so the forecast and the planner cannot disagree.
import type { Queryable } from "../db/pool";
import { formatWall, resolveWall } from "../schedules/zone-clock";
import type { CalendarLink, CalendarOutcome, CalendarPolicy, CalendarRules } from "./calendar-types";
import { findBlock, isBlockedDay, wallOf, type CalendarBlock } from "./find-calendar-block";

export { findBlock, type CalendarBlock } from "./find-calendar-block";

export { CALENDAR_POLICIES } from "./calendar-types";
export type { CalendarLink, CalendarOutcome, CalendarPolicy, CalendarRules } from "./calendar-types";

const DAY_MS = 86_400_000;
/** How far a shift may move a fire: a year and a day, so "next business day" is found after any holiday season. */
export const MAX_SHIFT_DAYS = 366;
// Calendars that keep pushing a fire back and forth (one shifts it forward into another's block, which shifts it
// back) end as excluded after this many moves instead of looping.
const MAX_MOVES = 64;
/** A shift to the previous allowed time before a window lands this long before the window opens. */
export const BEFORE_WINDOW_MS = 1000;

interface Move {
  link: CalendarLink;
  from: number;
  to: number;
  why: string;
}

/**
 * The fate of a fire at `fireMs` under the schedule's calendars, applied in order: the first calendar that blocks the
 * fire decides (skip: excluded; shift: moved to the previous / next allowed instant), and a moved fire is checked
 * against every calendar again.
 */
export function applyCalendars(links: readonly CalendarLink[], fireMs: number): CalendarOutcome {
  if (links.length === 0) return { kind: "keep" };
  const moves: Move[] = [];
  let at = fireMs;
  for (let round = 0; round <= MAX_MOVES; round++) {
    const hit = firstBlock(links, at);
    if (!hit) return moves.length === 0 ? { kind: "keep" } : shifted(moves);
    const { link, block } = hit;
    const first = moves[0]?.link ?? link;
    if (link.policy === "skip") {
      const moved = moves.length > 0 ? ` after ${movedText(moves, at)}` : "";
      return excluded(first, `excluded by calendar "${link.calendar.name}" (${block.why})${moved}`);
    }
    if (round === MAX_MOVES) break;
    const to = shiftTarget(link, block, at);
    const direction = link.policy === "shift_previous" ? "previous" : "next";
    if (to === null || Math.abs(to - fireMs) > MAX_SHIFT_DAYS * DAY_MS) {
      return excluded(
        first,
        `excluded by calendar "${link.calendar.name}" (${block.why}): no allowed time within ${MAX_SHIFT_DAYS} days to shift it to (shift to the ${direction} allowed time)`,
      );
    }
    moves.push({ link, from: at, to, why: `shift to the ${direction} allowed time; ${block.why}` });
    at = to;
  }
  const names = [...new Set(moves.map((m) => `"${m.link.calendar.name}"`))].join(", ");
  return excluded(moves[0]!.link, `excluded: calendars ${names} shift it back and forth without reaching an allowed time`);
}

function firstBlock(links: readonly CalendarLink[], at: number): { link: CalendarLink; block: CalendarBlock } | null {
  for (const link of links) {
    const block = findBlock(link.calendar, at);
    if (block) return { link, block };
  }
  return null;
}

function excluded(link: CalendarLink, reason: string): CalendarOutcome {
  return { kind: "excluded", calendar: link.calendar, policy: link.policy, reason };
}

function shifted(moves: Move[]): CalendarOutcome {
  const last = moves.at(-1)!;
  return {
    kind: "shifted",
    toMs: last.to,
    calendar: moves[0]!.link.calendar,
    policy: moves[0]!.link.policy,
    reason: movedText(moves, last.to),
  };
}

// "moved from 2026-12-25 18:00 to 2026-12-24 18:00 Europe/Berlin by calendar "Holidays DE" (shift to the previous
// allowed time; 2026-12-25 is a blocked day)", with ", then by calendar …" for each further move.
function movedText(moves: Move[], toMs: number): string {
  const zone = moves[0]!.link.calendar.timezone;
  const by = moves.map((m) => `calendar "${m.link.calendar.name}" (${m.why})`).join(", then by ");
  return `moved from ${wallText(zone, moves[0]!.from)} to ${wallText(zone, toMs)} ${zone} by ${by}`;
}

/** "2026-12-25 18:00" (seconds only when they are not zero) in the zone. */
export function wallText(zone: string, ms: number): string {
  const text = formatWall(wallOf(zone, ms));
  return text.endsWith(":00") ? text.slice(0, 16) : text;
}

// A blocked day moves the fire to the same wall time on the nearest day this calendar does not block all day (a time
// that day skips, in a spring-forward gap, becomes the first instant after the gap); a window or range moves it to
// its edge: next → the instant it ends, previous → just before it opens.
function shiftTarget(link: CalendarLink, block: CalendarBlock, at: number): number | null {
  const step = link.policy === "shift_previous" ? -1 : 1;
  if (block.kind !== "day") return step > 0 ? block.endMs : block.startMs - BEFORE_WINDOW_MS;
  const zone = link.calendar.timezone;
  const wall = wallOf(zone, at);
  for (let d = 1; d <= MAX_SHIFT_DAYS; d++) {
    const candidate = wall + step * d * DAY_MS;
    if (isBlockedDay(link.calendar, candidate)) continue;
    const r = resolveWall(zone, candidate);
    return r.kind === "single" ? r.at : r.kind === "repeat" ? r.first : r.transition.at;
  }
  return null;
}

interface CalendarLinkRow {
  schedule_id: string;
  policy: CalendarPolicy;
  id: string;
  name: string;
  timezone: string;
  rules: Omit<CalendarRules, "id" | "name" | "timezone">;
}

/** The rules of a stored calendar (calendars.rules jsonb plus its id, name and zone). */
export function toCalendarRules(r: Pick<CalendarLinkRow, "id" | "name" | "timezone" | "rules">): CalendarRules {
  return {
    id: r.id,
    name: r.name,
    timezone: r.timezone,
    dates: r.rules.dates ?? [],
    weekdays: r.rules.weekdays ?? [],
    windows: r.rules.windows ?? [],
    ranges: r.rules.ranges ?? [],
  };
}

/** Each schedule's calendar links in their order, by schedule id (schedules without any are absent). One query. */
export async function loadScheduleCalendars(db: Queryable, scheduleIds: readonly string[]): Promise<Map<string, CalendarLink[]>> {
  const out = new Map<string, CalendarLink[]>();
  if (scheduleIds.length === 0) return out;
  const { rows } = await db.query<CalendarLinkRow>(
    `SELECT sc.schedule_id, sc.policy, c.id, c.name, c.timezone, c.rules
       FROM schedule_calendars sc JOIN calendars c ON c.id = sc.calendar_id
      WHERE sc.schedule_id = ANY($1::uuid[])
      ORDER BY sc.schedule_id, sc.position`,
    [scheduleIds],
  );
  // Schedules sharing a calendar share one rules object (the planner asks the same calendar about many fires).
  const calendars = new Map<string, CalendarRules>();
  for (const r of rows) {
    let calendar = calendars.get(r.id);
    if (!calendar) calendars.set(r.id, (calendar = toCalendarRules(r)));
    const links = out.get(r.schedule_id) ?? [];
    links.push({ calendar, policy: r.policy });
    out.set(r.schedule_id, links);
  }
  return out;
}
