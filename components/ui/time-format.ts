// How the console writes instants and durations. Every absolute time says which zone it is in, so an
// operator never has to guess whether "02:00" is the schedule's, the server's or their own.
// "Your" zone is the browser's, or UTC when the user chose UTC in the user menu (setTimeDisplay): every
// function here that is not given a zone uses it, so the choice reaches every timestamp on every page.
// Durations are written by core's formatDuration (alert messages use it too), re-exported here.
import { formatDuration } from "@/core/format-duration";

export { formatDuration };

export type TimeDisplay = "local" | "utc";

let display: TimeDisplay = "local";
const listeners = new Set<() => void>();

/** The user's choice of zone for times shown without one: the browser's own ("local") or UTC. */
export function getTimeDisplay(): TimeDisplay {
  return display;
}

export function setTimeDisplay(next: TimeDisplay): void {
  if (next === display) return;
  display = next;
  for (const l of listeners) l();
}

export function subscribeTimeDisplay(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The zone times are shown in when a caller names none; undefined means the browser's. */
function displayZone(): string | undefined {
  return display === "utc" ? "UTC" : undefined;
}

const zoneFormatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(zone: string | undefined): Intl.DateTimeFormat {
  zone ??= displayZone();
  const key = zone ?? "";
  let f = zoneFormatters.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat("en-GB", {
      timeZone: zone,
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
      hourCycle: "h23",
      timeZoneName: "short",
    });
    zoneFormatters.set(key, f);
  }
  return f;
}

function parts(iso: string | number | Date, zone?: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of formatterFor(zone).formatToParts(new Date(iso))) out[p.type] = p.value;
  return out;
}

/** "2026-03-29 03:00:00 CEST" in `zone`, or in the viewer's zone when none is given; `ms` adds ".123". */
export function formatInZone(iso: string | number | Date | null | undefined, zone?: string, opts: { ms?: boolean } = {}): string {
  if (iso === null || iso === undefined) return "—";
  const p = parts(iso, zone);
  const ms = opts.ms ? `.${String(new Date(iso).getMilliseconds()).padStart(3, "0")}` : "";
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}:${p.second}${ms} ${p.timeZoneName ?? ""}`.trim();
}

/** "14:03:07" in the viewer's zone: for dense tables and axes where the date is obvious. */
export function formatClock(iso: string | number | Date | null | undefined, zone?: string): string {
  if (iso === null || iso === undefined) return "—";
  const p = parts(iso, zone);
  return `${p.hour}:${p.minute}:${p.second}`;
}

// Axis ticks are formatted on every chart render: reuse the formatters (building one is the expensive part).
const tickFormatters = new Map<string, Intl.DateTimeFormat>();

function tickFormatter(kind: "day" | "hour"): Intl.DateTimeFormat {
  const zone = displayZone();
  const key = `${kind}:${zone ?? ""}`;
  let f = tickFormatters.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat(
      "en-GB",
      kind === "day"
        ? { timeZone: zone, day: "2-digit", month: "short", hour: "2-digit", minute: "2-digit", hourCycle: "h23" }
        : { timeZone: zone, hour: "2-digit", minute: "2-digit", hourCycle: "h23" },
    );
    tickFormatters.set(key, f);
  }
  return f;
}

/** "13 Mar 14:03" in the viewer's zone, for axis ticks spanning days. */
export function formatDayClock(ms: number): string {
  return tickFormatter("day").format(ms);
}

/** "14:03" in the viewer's zone, for axis ticks. */
export function formatHourMinute(ms: number): string {
  return tickFormatter("hour").format(ms);
}

/** The viewer's IANA zone, e.g. "Europe/Berlin" — or "UTC" when they chose to see times in UTC. */
export function viewerZone(): string {
  return displayZone() ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
}

/** "in 4 min", "12 s ago", "now". `nowMs` is passed in so a whole table agrees on one now. */
export function formatRelative(iso: string | number | Date | null | undefined, nowMs: number): string {
  if (iso === null || iso === undefined) return "—";
  const diff = new Date(iso).getTime() - nowMs;
  if (Math.abs(diff) < 1000) return "now";
  return diff > 0 ? `in ${formatDuration(diff)}` : `${formatDuration(-diff)} ago`;
}

/** "14:03:07.123" in the viewer's zone: event traces where milliseconds matter. */
export function formatPrecise(iso: string | number | Date | null | undefined): string {
  if (iso === null || iso === undefined) return "—";
  const d = new Date(iso);
  // Milliseconds are the same in every zone (no zone is offset by a fraction of a second).
  return `${formatClock(d)}.${String(d.getMilliseconds()).padStart(3, "0")}`;
}
