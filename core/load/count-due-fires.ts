// Due runs per minute for many schedules at once, from the plan (core/schedules/fire-plan.ts): only fires whose
// fate is "run" count, at the instant the plan puts them (plannedAt). Pure.
//
// Cost. planFires costs a few microseconds per fire, and 10,000 schedules × 1,440 minutes is too many fires to ask
// for one by one, so schedules whose plans are the same are planned once:
// - The plan key is everything of the schedule the plan reads (every field but the ones listed in NOT_PLAN_INPUT),
//   so two schedules with the same cron, zone, pause, calendars and dates share one planFires call.
// - An interval trigger's fires are anchor + k × every. Its anchor (the creation time when the trigger names none)
//   only matters through its phase, so every anchor before the window is moved to the first instant of its phase
//   since 1970. For a plan with nothing else tied to absolute time (no calendars, pause or start/end dates) the phase
//   is also rounded down to g = gcd(every, 1 minute): a fire at p + k × every (p = q × g + r, r < g) lies in the same
//   minute as q × g + k × every, because both sides of a minute boundary are multiples of g. So the counts per
//   minute are exact and an interval costs about one schedule's fires per distinct period, however many share it.
// A plan's fires are kept as minute indexes (Int32Array), not as objects.
import type { CalendarLink } from "../calendars/calendar-rules";
import { firePlanOf, planFires, type FirePlanSchedule } from "../schedules/fire-plan";
import { MAX_FIRE_TIMES } from "../schedules/fire-time";
import { RUN_SETTING_FIELDS, type Schedule } from "../schedules/schedule-record";

export const MINUTE_MS = 60_000;

/** The window: whole minutes [startMs, startMs + minutes × 1 min). */
export interface MinuteWindow {
  startMs: number;
  minutes: number;
}

/** A schedule's share of the forecast: which plan it follows. */
export interface PlannedSchedule {
  schedule: Schedule;
  planKey: string;
}

export interface DuePlans {
  /** Per plan key: the minute index of each due fire (a minute with 3 fires appears 3 times). */
  fires: Map<string, Int32Array>;
  schedules: PlannedSchedule[];
  /** planFires calls made (distinct plans). */
  plans: number;
}

// Settings that say how a run executes or is reported, not when the schedule fires. Everything else a
// FirePlanSchedule carries is part of the plan key, so a field the plan learns to read later is keyed too.
const NOT_PLAN_INPUT = new Set<string>([
  "id",
  "name",
  "description",
  "handler",
  "payload",
  "triggerDescription",
  "enabled",
  ...RUN_SETTING_FIELDS,
  "tags",
  "maintenanceId",
  "managedBy",
  "managedAt",
  "revision",
  "plannedThrough",
  "createdBy",
  "createdAt",
  "updatedAt",
  "deletedAt",
]);

function gcd(a: number, b: number): number {
  while (b) [a, b] = [b, a % b];
  return a;
}

const mod = (a: number, m: number) => ((a % m) + m) % m;

/**
 * The plan input as planFires will see it (an interval's anchor moved to the first instant of its phase), built only
 * when asked (once per distinct plan), and its key: the schedule's fields the plan may read (all but NOT_PLAN_INPUT)
 * and its calendar links, whatever firePlanOf makes of them.
 */
export function canonicalPlan(
  schedule: Schedule,
  links: CalendarLink[],
  window: MinuteWindow,
): { key: string; plan: () => FirePlanSchedule } {
  const fromMs = window.startMs - 1;
  const t = schedule.trigger;
  let createdAt = schedule.createdAt;
  let trigger = t;
  if (t.kind === "interval") {
    const anchorMs = t.anchor !== undefined ? Date.parse(t.anchor) : schedule.createdAt.getTime();
    if (anchorMs <= fromMs) {
      const everyMs = t.everySeconds * 1000;
      const dated = schedule as Schedule & { startsAt?: Date | null; endsAt?: Date | null };
      const plain = links.length === 0 && !schedule.paused && !dated.startsAt && !dated.endsAt;
      const g = plain ? gcd(everyMs, MINUTE_MS) : 1;
      // The first instant of the (rounded) phase since 1970: the same for every window, so the plan's key is too.
      const canonical = mod(anchorMs - mod(anchorMs, g), everyMs);
      createdAt = new Date(canonical);
      trigger = t.anchor !== undefined ? { ...t, anchor: new Date(canonical).toISOString() } : t;
    }
  } else {
    // Cron and one-off fires do not depend on the creation time; any creation before the window plans the same.
    if (createdAt.getTime() <= fromMs) createdAt = new Date(0);
  }
  const parts: unknown[] = [createdAt.getTime(), trigger, links];
  const fields = schedule as unknown as Record<string, unknown>;
  for (const k in fields) if (k !== "trigger" && !NOT_PLAN_INPUT.has(k)) parts.push(k, fields[k]);
  return { key: JSON.stringify(parts), plan: () => ({ ...firePlanOf(schedule, links), trigger, createdAt }) };
}

/** Equal for two plan inputs that planFires answers the same for: every field it may read. */
export function planKey(plan: FirePlanSchedule): string {
  const keyed: Record<string, unknown> = { createdAt: plan.createdAt.getTime() };
  for (const [k, v] of Object.entries(plan)) {
    if (NOT_PLAN_INPUT.has(k)) continue;
    keyed[k] = v;
  }
  return JSON.stringify(keyed);
}

// planFires is pure: a plan's due minutes (as minutes since 1970) are kept across requests by plan key, computed an
// hour beyond the window asked for, so a console polling the page re-plans nothing until the window has moved on
// by that hour. Bounded: a fleet with more distinct plans than this re-plans some.
const PLAN_CACHE_MAX = 50_000;
const SLACK_MINUTES = 60;
const planCache = new Map<string, { from: number; to: number; minutes: Int32Array }>();

/** The due minutes of a plan in the window (indexes into it), from the cache or planned now. */
function cachedDueMinutes(key: string, plan: () => FirePlanSchedule, window: MinuteWindow): Int32Array {
  const from = window.startMs / MINUTE_MS;
  const to = from + window.minutes;
  let hit = planCache.get(key);
  if (!hit || hit.from > from || hit.to < to) {
    const wide = { startMs: window.startMs, minutes: window.minutes + SLACK_MINUTES };
    const minutes = dueMinutes(plan(), wide);
    for (let i = 0; i < minutes.length; i++) minutes[i]! += from;
    hit = { from, to: to + SLACK_MINUTES, minutes };
    if (planCache.size >= PLAN_CACHE_MAX) planCache.clear();
    planCache.set(key, hit);
  }
  const all = hit.minutes;
  const lo = lowerBound(all, from);
  const hi = lowerBound(all, to);
  // A plain loop: a typed array's map calls a function per fire (millions over 7 days).
  const out = new Int32Array(hi - lo);
  for (let i = lo; i < hi; i++) out[i - lo] = all[i]! - from;
  return out;
}

function lowerBound(a: Int32Array, v: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid]! < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The minute index of each fire of `plan` due ("run") in the window, in order, from planFires page by page. */
export function dueMinutes(plan: FirePlanSchedule, window: MinuteWindow): Int32Array {
  const endMs = window.startMs + window.minutes * MINUTE_MS;
  const out: number[] = [];
  let from = new Date(window.startMs - 1);
  const until = new Date(endMs - 1);
  for (;;) {
    const { fires, cut } = planFires(plan, { from, until }, { limit: MAX_FIRE_TIMES });
    for (const f of fires) {
      if (f.fate !== "run") continue;
      const at = f.plannedAt.getTime();
      if (at < window.startMs || at >= endMs) continue;
      out.push(Math.floor((at - window.startMs) / MINUTE_MS));
    }
    if (!cut || fires.length === 0) break;
    from = fires[fires.length - 1]!.nominalAt;
  }
  // A calendar may move a fire earlier than the next one: keep the minutes in order for the cache's search.
  return Int32Array.from(out).sort();
}

/** Plans every schedule (once per distinct plan) over the window. */
export function countDueFires(schedules: readonly Schedule[], calendars: Map<string, CalendarLink[]>, window: MinuteWindow): DuePlans {
  const fires = new Map<string, Int32Array>();
  const planned: PlannedSchedule[] = [];
  for (const s of schedules) {
    const { plan, key } = canonicalPlan(s, calendars.get(s.id) ?? [], window);
    if (!fires.has(key)) fires.set(key, cachedDueMinutes(key, plan, window));
    planned.push({ schedule: s, planKey: key });
  }
  return { fires, schedules: planned, plans: fires.size };
}

/** Due runs per minute over a set of schedules: Σ of their plans' fires. */
export function curveOf(due: DuePlans, members: readonly PlannedSchedule[], window: MinuteWindow): Int32Array {
  const perPlan = new Map<string, number>();
  for (const m of members) perPlan.set(m.planKey, (perPlan.get(m.planKey) ?? 0) + 1);
  const curve = new Int32Array(window.minutes);
  for (const [key, n] of perPlan) {
    for (const minute of due.fires.get(key)!) curve[minute]! += n;
  }
  return curve;
}
