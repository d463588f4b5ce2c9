// An iCalendar (.ics) file read with ical.js (not a hand-written parser) into a calendar's blocked dates and ranges:
// an all-day event blocks its dates (read in the calendar's zone), a timed event blocks its span, and a recurring
// event (RRULE, RDATE, EXDATE and moved occurrences) is expanded over a bounded horizon. Times with a TZID are read in
// that zone (an IANA name, or the file's own VTIMEZONE), UTC times as they are, floating times in the calendar's zone.
import ICAL from "ical.js";
import { ValidationError } from "../errors";
import { isKnownTimeZone, resolveWall } from "../schedules/zone-clock";
import { MAX_CALENDAR_DATES, MAX_CALENDAR_RANGES } from "./calendar-input";

const DAY_MS = 86_400_000;
/** How far ahead recurring events are expanded. */
export const ICS_HORIZON_DAYS = 2 * 365;
// A rule that fires every minute would otherwise be walked for two years.
const MAX_OCCURRENCES_WALKED = 100_000;

export interface IcsImport {
  dates: string[];
  ranges: { start: string; end: string; summary?: string }[];
  /** Events read (a recurring event counts once). */
  events: number;
  /** Events left out, with why (cancelled, or ended before the horizon). */
  skipped: number;
}

function invalid(message: string): ValidationError {
  return new ValidationError(message, { ics: message }, "invalid_ics");
}

/** Reads `text`; blocks that end before `from` are left out, recurring events are expanded up to ICS_HORIZON_DAYS after it. */
export function parseIcs(text: string, opts: { timezone: string; from: Date }): IcsImport {
  let root: ICAL.Component;
  try {
    root = new ICAL.Component(ICAL.parse(text));
  } catch (err) {
    throw invalid(`The file is not a valid iCalendar (.ics) file: ${(err as Error).message}`);
  }
  if (root.name !== "vcalendar")
    throw invalid(`The file is not an iCalendar (.ics) file: it starts with ${root.name.toUpperCase()}, not VCALENDAR`);
  const vevents = root.getAllSubcomponents("vevent");
  if (vevents.length === 0) throw invalid("The .ics file holds no events (VEVENT): nothing to block");

  const zones = new Map(root.getAllSubcomponents("vtimezone").map((z) => [String(z.getFirstPropertyValue("tzid")), new ICAL.Timezone(z)]));
  const fromMs = opts.from.getTime();
  const untilMs = fromMs + ICS_HORIZON_DAYS * DAY_MS;
  const dates = new Set<string>();
  const ranges: IcsImport["ranges"] = [];
  let events = 0;
  let skipped = 0;

  const instantOf = (t: ICAL.Time, tzid: string | undefined, where: string): number => {
    const wall = Date.UTC(t.year, t.month - 1, t.day, t.hour, t.minute, t.second);
    if (!Number.isFinite(wall) || t.year < 1900 || t.year > 2200) throw invalid(`${where} has a date that cannot be read: ${t.toString()}`);
    if (t.zone?.tzid === "UTC") return wall;
    const own = tzid ? zones.get(tzid) : undefined;
    if (own) return wall - own.utcOffset(t) * 1000;
    const zone = tzid && isKnownTimeZone(tzid) && !/^[+-]\d/.test(tzid) ? tzid : opts.timezone;
    const r = resolveWall(zone, wall);
    return r.kind === "single" ? r.at : r.kind === "repeat" ? r.first : r.transition.at;
  };

  const block = (item: ICAL.Event, start: ICAL.Time, end: ICAL.Time, where: string) => {
    if (start.isDate) {
      // End exclusive; an event without an end (or ending where it starts) blocks its one day.
      const first = Date.UTC(start.year, start.month - 1, start.day);
      const last = Math.max(first + DAY_MS, Date.UTC(end.year, end.month - 1, end.day));
      if (last <= fromMs - DAY_MS) return false;
      for (let d = first; d < last; d += DAY_MS) dates.add(new Date(d).toISOString().slice(0, 10));
      return true;
    }
    const s = instantOf(start, tzidOf(item, "dtstart"), where);
    const e = instantOf(end, tzidOf(item, item.component.hasProperty("dtend") ? "dtend" : "dtstart"), where);
    if (e <= fromMs) return false;
    // An event with no length (DTEND = DTSTART, or none) blocks nothing: it is a point, not a span.
    if (e <= s) return false;
    ranges.push({
      start: new Date(s).toISOString(),
      end: new Date(e).toISOString(),
      ...(item.summary ? { summary: item.summary.slice(0, 200) } : {}),
    });
    return true;
  };

  // Moved or changed occurrences (RECURRENCE-ID) belong to their recurring event, which ical.js applies.
  const byUid = new Map<string, ICAL.Event>();
  const exceptions: ICAL.Component[] = [];
  for (const v of vevents) {
    if (v.hasProperty("recurrence-id")) exceptions.push(v);
    else byUid.set(String(v.getFirstPropertyValue("uid") ?? `#${byUid.size}`), new ICAL.Event(v));
  }
  for (const x of exceptions) {
    const master = byUid.get(String(x.getFirstPropertyValue("uid")));
    if (master) master.relateException(new ICAL.Event(x));
    else byUid.set(`#exception${byUid.size}`, new ICAL.Event(x));
  }

  for (const event of byUid.values()) {
    const where = `Event "${event.summary || event.uid || "without a summary"}"`;
    if (!event.component.hasProperty("dtstart")) throw invalid(`${where} has no start (DTSTART)`);
    if (String(event.component.getFirstPropertyValue("status") ?? "").toUpperCase() === "CANCELLED") {
      skipped++;
      continue;
    }
    events++;
    if (!event.isRecurring()) {
      if (!block(event, event.startDate, event.endDate, where)) skipped++;
      continue;
    }
    let walked = 0;
    let kept = 0;
    const it = event.iterator();
    for (let t = it.next(); t; t = it.next()) {
      if (++walked > MAX_OCCURRENCES_WALKED) {
        throw invalid(
          `${where} repeats too often to import (more than ${MAX_OCCURRENCES_WALKED} occurrences); block its times with a recurring window instead`,
        );
      }
      const d = event.getOccurrenceDetails(t);
      if (!d.startDate.isDate && instantOf(d.startDate, tzidOf(d.item, "dtstart"), where) >= untilMs) break;
      if (d.startDate.isDate && Date.UTC(d.startDate.year, d.startDate.month - 1, d.startDate.day) >= untilMs) break;
      if (String(d.item.component.getFirstPropertyValue("status") ?? "").toUpperCase() === "CANCELLED") continue;
      if (block(d.item, d.startDate, d.endDate, where)) kept++;
    }
    if (kept === 0) skipped++;
  }

  if (dates.size > MAX_CALENDAR_DATES)
    throw invalid(`The file blocks ${dates.size} whole days; a calendar holds at most ${MAX_CALENDAR_DATES}`);
  if (ranges.length > MAX_CALENDAR_RANGES)
    throw invalid(`The file blocks ${ranges.length} time ranges; a calendar holds at most ${MAX_CALENDAR_RANGES}`);
  return { dates: [...dates].sort(), ranges: ranges.sort((a, b) => a.start.localeCompare(b.start)), events, skipped };
}

function tzidOf(event: ICAL.Event, property: "dtstart" | "dtend"): string | undefined {
  const tzid = event.component.getFirstProperty(property)?.getParameter("tzid");
  return typeof tzid === "string" ? tzid : undefined;
}
