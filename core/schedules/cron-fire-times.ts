import { Cron } from "croner";
import { isFixedTimeCron, parseCronFields } from "./cron-fields";
import { toFireTime, type FireTime } from "./fire-time";
import type { CronTrigger } from "./trigger";
import { formatOffset, formatWallClock, formatWallDate, offsetAt, resolveWall, type Transition } from "./zone-clock";

// croner only enumerates wall-clock matches here (utcOffset 0 has no DST); turning wall times into instants, and
// every DST decision, happens in zone-clock.ts so the flags and policies are ours, not the library's.

const DAY_MS = 86_400_000;

interface GapInfo {
  transition: Transition;
  first: number;
  last: number;
  count: number;
  mode: "shifted" | "skipped" | "elapsed";
}

interface RepeatInfo {
  transition: Transition;
  wall: number;
  pass: 1 | 2;
  mode: "once" | "twice" | "elapsed";
}

interface Candidate {
  at: number;
  offset: number;
  wall: number;
  gap?: GapInfo;
  repeat?: RepeatInfo;
  skipped?: true;
}

export interface CronFireRange {
  from: number;
  until?: number;
  count: number;
  includeSkipped: boolean;
}

interface ParsedCron {
  fixed: boolean;
  wallCron: Cron;
}

// Parsed once per expression: the planner asks for the fires of the same few thousand expressions every few
// seconds, and parsing (croner's and ours) cost more than walking the fires. A paused Cron asked for nextRun(from)
// keeps no state between calls. Bounded: a fleet with more distinct expressions than this re-parses some.
const parsedCrons = new Map<string, ParsedCron>();
const PARSED_CRONS_MAX = 20_000;

function parsedCron(cron: string): ParsedCron {
  const hit = parsedCrons.get(cron);
  if (hit) return hit;
  const fields = parseCronFields(cron);
  if (!fields) throw new Error(`Cron expression "${cron}" was not validated: parse triggers with triggerSchema`);
  const parsed = { fixed: isFixedTimeCron(fields), wallCron: new Cron(cron, { utcOffset: 0, paused: true, mode: "5-or-6-parts" }) };
  if (parsedCrons.size >= PARSED_CRONS_MAX) parsedCrons.clear();
  parsedCrons.set(cron, parsed);
  return parsed;
}

export function cronFireTimes(trigger: CronTrigger, range: CronFireRange): FireTime[] {
  const { fixed, wallCron } = parsedCron(trigger.cron);
  const zone = trigger.timezone;
  const { from, until, count, includeSkipped } = range;
  const out: FireTime[] = [];
  if (count <= 0) return out;

  let fires = 0;
  const buffer: Candidate[] = [];
  let elapsedGap: GapInfo | undefined;

  const add = (c: Candidate): void => {
    if (c.at <= from || (until !== undefined && c.at > until)) return;
    if (!c.skipped && elapsedGap && c.at >= elapsedGap.transition.at) {
      c.gap = elapsedGap;
      elapsedGap = undefined;
    }
    // Several planned times can land on one instant (all of a gap shifted to its end): they fire once.
    const same = c.skipped ? undefined : buffer.find((b) => !b.skipped && b.at === c.at);
    if (!same) buffer.push(c);
    else if (c.gap) same.gap = same.gap ? mergeGap(same.gap, c.gap) : c.gap;
  };

  // Emits buffered candidates before `safe`; true once `count` fires are out.
  const flush = (safe: number): boolean => {
    if (buffer.length > 1) buffer.sort((a, b) => a.at - b.at || Number(!a.skipped) - Number(!b.skipped) || a.wall - b.wall);
    let ready = 0;
    while (ready < buffer.length && (buffer[ready]?.at ?? Infinity) < safe) ready++;
    for (const c of buffer.splice(0, ready)) {
      out.push(render(c, zone));
      if (!c.skipped && ++fires >= count) return true;
    }
    return false;
  };

  // The earliest wall time that can still fire after `from` is `from` at the lowest offset in force around it.
  const lowestOffset = Math.min(offsetAt(zone, from - DAY_MS), offsetAt(zone, from), offsetAt(zone, from + DAY_MS));
  let cursor = new Date(Math.floor((from + lowestOffset) / 1000) * 1000 - 1000);

  for (;;) {
    const next = wallCron.nextRun(cursor);
    if (!next) {
      flush(Infinity);
      break;
    }
    cursor = next;
    const wall = next.getTime();
    const r = resolveWall(zone, wall);
    const offsets = r.kind === "single" ? [r.offsetBefore, r.offsetAfter] : [r.transition.offsetBefore, r.transition.offsetAfter];
    // Every instant of this wall time or a later one is at least `safe`, so earlier candidates are final.
    const safe = wall - Math.max(...offsets);
    if (flush(safe)) break;
    if (until !== undefined && safe > until) {
      flush(Infinity);
      break;
    }

    if (r.kind === "single") {
      add({ at: r.at, offset: wall - r.at, wall });
    } else if (r.kind === "repeat") {
      const t = r.transition;
      const mode = fixed ? trigger.dst.repeat : "elapsed";
      add({ at: r.first, offset: t.offsetBefore, wall, repeat: { transition: t, wall, pass: 1, mode } });
      if (mode !== "once") add({ at: r.second, offset: t.offsetAfter, wall, repeat: { transition: t, wall, pass: 2, mode } });
    } else {
      const t = r.transition;
      const gap = (mode: GapInfo["mode"]): GapInfo => ({ transition: t, first: wall, last: wall, count: 1, mode });
      if (!fixed) {
        // Noted on the next fire, which is not moved: an every-15-minutes job still runs 15 real minutes apart.
        if (t.at > from) elapsedGap = elapsedGap ? mergeGap(elapsedGap, gap("elapsed")) : gap("elapsed");
      } else if (trigger.dst.gap === "shift") {
        add({ at: t.at, offset: t.offsetAfter, wall: t.at + t.offsetAfter, gap: gap("shifted") });
      } else if (includeSkipped) {
        add({ at: t.at, offset: t.offsetAfter, wall, gap: gap("skipped"), skipped: true });
      }
    }
  }
  return out;
}

function mergeGap(a: GapInfo, b: GapInfo): GapInfo {
  return { ...a, first: Math.min(a.first, b.first), last: Math.max(a.last, b.last), count: a.count + b.count };
}

function render(c: Candidate, zone: string): FireTime {
  if (c.gap) {
    const flag = { kind: "gap" as const, note: gapNote(c.gap, zone), ...(c.skipped ? { skipped: true as const } : {}) };
    return toFireTime(c.at, c.offset, flag, c.wall);
  }
  if (c.repeat) return toFireTime(c.at, c.offset, { kind: "repeat", note: repeatNote(c.repeat, zone) }, c.wall);
  return toFireTime(c.at, c.offset, undefined, c.wall);
}

function gapNote(g: GapInfo, zone: string): string {
  const t = g.transition;
  const jumpFrom = t.at + t.offsetBefore;
  const jumpTo = t.at + t.offsetAfter;
  const [first, last] = [formatWallClock(g.first), formatWallClock(g.last)];
  const times = g.count === 1 ? first : g.count === 2 ? `${first} and ${last}` : `${first} to ${last} (${g.count} times)`;
  const head =
    `${times} ${g.count === 1 ? "does" : "do"} not exist on ${formatWallDate(g.first)} in ${zone} ` +
    `(clocks jump ${describeJump(jumpFrom, jumpTo)})`;
  if (g.mode === "shifted") return `${head}; ${g.count === 1 ? "runs" : "they run once"} at ${formatWallClock(jumpTo)}`;
  if (g.mode === "skipped") return `${head}; skipped (DST gap policy "skip")`;
  return `${head}; not run, as this schedule repeats within the day and keeps its rhythm in elapsed time`;
}

function repeatNote(r: RepeatInfo, zone: string): string {
  const t = r.transition;
  const head =
    `${formatWallClock(r.wall)} occurs twice on ${formatWallDate(r.wall)} in ${zone} ` +
    `(clocks go back ${describeJump(t.at + t.offsetBefore, t.at + t.offsetAfter)})`;
  const which = `the ${r.pass === 1 ? "first" : "second"} (${formatOffset(r.pass === 1 ? t.offsetBefore : t.offsetAfter)})`;
  if (r.mode === "once") return `${head}; runs once, at ${which}`;
  if (r.mode === "twice") return `${head}; runs at both, this is ${which}`;
  return `${head}; this schedule repeats within the day, so it runs at both, this is ${which}`;
}

/** "02:00→03:00", with dates when the jump crosses midnight (Pacific/Apia skipped all of 2011-12-30). */
function describeJump(fromWall: number, toWall: number): string {
  if (formatWallDate(fromWall) === formatWallDate(toWall)) return `${formatWallClock(fromWall)}→${formatWallClock(toWall)}`;
  return `${formatWallDate(fromWall)} ${formatWallClock(fromWall)}→${formatWallDate(toWall)} ${formatWallClock(toWall)}`;
}
