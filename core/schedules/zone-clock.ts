// Wall-clock arithmetic in an IANA zone, done with Intl only (no library), so DST flags are computed here and not
// taken on trust from the cron library.
//
// A "wall" value is epoch milliseconds whose UTC fields spell the wall-clock time in the zone: the wall value of
// 2026-03-08 02:30 in any zone is Date.UTC(2026, 2, 8, 2, 30). Offsets are wall minus instant, in milliseconds.

const DAY_MS = 86_400_000;

/** A change of UTC offset: from `at` on, the zone is `offsetAfter` ahead of UTC instead of `offsetBefore`. */
export interface Transition {
  at: number;
  offsetBefore: number;
  offsetAfter: number;
}

export type WallResolution =
  /** The wall time exists once. */
  | { kind: "single"; at: number; offsetBefore: number; offsetAfter: number }
  /** The wall time happens twice (clocks went back); `first` < `second`. */
  | { kind: "repeat"; first: number; second: number; transition: Transition }
  /** The wall time does not exist (clocks jumped over it); `transition.at` is the first valid instant after it. */
  | { kind: "gap"; transition: Transition };

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(zone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(zone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
    formatters.set(zone, formatter);
  }
  return formatter;
}

/** True when Intl knows the zone. Intl also accepts offsets such as "+02:00"; callers reject those separately. */
export function isKnownTimeZone(zone: string): boolean {
  try {
    formatterFor(zone);
    return true;
  } catch {
    return false;
  }
}

// Zones whose offset is always 0: no Intl call needed (Intl's formatToParts was the planner's largest cost for them).
const FIXED_UTC = new Set(["UTC", "Etc/UTC", "Etc/GMT", "GMT", "Etc/Universal", "Universal", "Etc/Zulu", "Zulu"]);

/** The wall value of an instant in a zone. */
export function toWall(zone: string, instant: number): number {
  if (FIXED_UTC.has(zone)) return instant;
  const whole = Math.floor(instant / 1000) * 1000;
  const f: Record<string, number> = {};
  for (const part of formatterFor(zone).formatToParts(whole)) {
    if (part.type !== "literal") f[part.type] = Number(part.value);
  }
  const wall = Date.UTC(f.year ?? 0, (f.month ?? 1) - 1, f.day ?? 1, f.hour ?? 0, f.minute ?? 0, f.second ?? 0);
  return wall + (instant - whole);
}

export function offsetAt(zone: string, instant: number): number {
  return toWall(zone, instant) - instant;
}

// Stretches of time known to have one offset. Walking a schedule asks for offsets a second apart, a day either side
// of each wall time; looking a day ahead lets those calls skip Intl until a stretch ends. Sound because no zone
// changes its offset twice within a day, so equal offsets less than a day apart have no change between them.
interface Span {
  from: number;
  to: number;
  offset: number;
}
const stableSpans = new Map<string, Span[]>();

function stableOffsetAt(zone: string, instant: number): number {
  const spans = stableSpans.get(zone) ?? [];
  const hit = spans.find((s) => instant >= s.from && instant <= s.to);
  if (hit) return hit.offset;
  const offset = offsetAt(zone, instant);
  const near = spans.find((s) => s.offset === offset && instant - s.to <= DAY_MS && s.from - instant <= DAY_MS);
  const span = near ?? { from: instant, to: instant, offset };
  span.from = Math.min(span.from, instant);
  span.to = Math.max(span.to, instant);
  if (offsetAt(zone, span.to + DAY_MS) === offset) span.to += DAY_MS;
  // A few spans cover the two look-ups per wall time (a day before, a day after) on both sides of a transition.
  stableSpans.set(zone, near ? spans : [span, ...spans].slice(0, 4));
  return offset;
}

// Transitions found by bisection, kept so a repeated hour walked minute by minute bisects once, not sixty times.
const knownTransitions = new Map<string, Transition[]>();

/** The transition in (low, high], given that the offsets at low and high differ. */
function findTransition(zone: string, low: number, high: number): Transition {
  const cached = knownTransitions.get(zone) ?? [];
  const hit = cached.find((t) => t.at > low && t.at <= high);
  if (hit) return hit;
  const offsetBefore = offsetAt(zone, low);
  let lo = low;
  let hi = high;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (offsetAt(zone, mid) === offsetBefore) lo = mid;
    else hi = mid;
  }
  const transition = { at: hi, offsetBefore, offsetAfter: offsetAt(zone, hi) };
  knownTransitions.set(zone, [...cached, transition]);
  return transition;
}

/**
 * The instants at which a wall time happens in a zone. Offsets are sampled a day either side, the approach of the
 * Temporal polyfill: no zone changes its offset twice within two days.
 */
export function resolveWall(zone: string, wall: number): WallResolution {
  const offsetBefore = stableOffsetAt(zone, wall - DAY_MS);
  const offsetAfter = stableOffsetAt(zone, wall + DAY_MS);
  if (offsetBefore === offsetAfter) return { kind: "single", at: wall - offsetBefore, offsetBefore, offsetAfter };

  const transition = findTransition(zone, wall - DAY_MS, wall + DAY_MS);
  const early = wall - offsetBefore;
  const late = wall - offsetAfter;
  const earlyValid = early < transition.at;
  const lateValid = late >= transition.at;
  // Clocks went back (offsetBefore > offsetAfter): early < late, both on their side of the transition.
  if (earlyValid && lateValid) return { kind: "repeat", first: early, second: late, transition };
  if (earlyValid) return { kind: "single", at: early, offsetBefore, offsetAfter };
  if (lateValid) return { kind: "single", at: late, offsetBefore, offsetAfter };
  // Clocks jumped forward over this wall time: neither instant shows it.
  return { kind: "gap", transition };
}

/** "2026-03-29 02:30:00" */
export function formatWall(wall: number): string {
  return new Date(wall).toISOString().slice(0, 19).replace("T", " ");
}

/** "02:30", or "02:30:15" when the seconds matter. */
export function formatWallClock(wall: number): string {
  const hms = new Date(wall).toISOString().slice(11, 19);
  return hms.endsWith(":00") ? hms.slice(0, 5) : hms;
}

/** "2026-03-29" */
export function formatWallDate(wall: number): string {
  return new Date(wall).toISOString().slice(0, 10);
}

/** "+05:30", "-04:00", "+00:00" */
export function formatOffset(offset: number): string {
  const minutes = Math.round(Math.abs(offset) / 60_000);
  const hh = String(Math.floor(minutes / 60)).padStart(2, "0");
  const mm = String(minutes % 60).padStart(2, "0");
  return `${offset < 0 ? "-" : "+"}${hh}:${mm}`;
}
