// The fleet's load ahead: due runs per minute over the next 24 hours or 7 days, for the whole fleet or one
// concurrency group or tag, with the bursts a group's limit turns into waiting (group-bunching.ts). Every count
// comes from the plan (count-due-fires.ts → core/schedules/fire-plan.ts); nothing here decides a fire's fate.
import { z } from "zod";
import { loadScheduleCalendars, type CalendarLink } from "../calendars/calendar-rules";
import type { Queryable } from "../db/pool";
import { SCHEDULE_COLUMNS, toSchedule, type Schedule, type ScheduleRow } from "../schedules/schedule-record";
import { countDueFires, curveOf, MINUTE_MS, type DuePlans, type MinuteWindow, type PlannedSchedule } from "./count-due-fires";
import { groupBursts, type GroupLimits } from "./group-bunching";
import { medianRunDurations } from "./median-run-durations";

export const LOAD_WINDOWS = { "24h": 1440, "7d": 10_080 } as const;
export type LoadWindow = keyof typeof LOAD_WINDOWS;

export const loadScopeFields = {
  window: z.enum(["24h", "7d"], { error: "window must be 24h or 7d" }).default("24h"),
  by: z.enum(["fleet", "group", "tag"], { error: "by must be fleet, group or tag" }).default("fleet"),
  key: z.string({ error: "key must be a string" }).min(1, { error: "key must name a group or tag" }).max(200).optional(),
};

/** A group or tag scope names which one. */
export function refineLoadScope(v: { by: string; key?: string }, ctx: z.RefinementCtx): void {
  if (v.by !== "fleet" && !v.key) ctx.addIssue({ code: "custom", path: ["key"], message: `by=${v.by} needs key: the ${v.by} to show` });
}

/** The query of GET /api/load-forecast. */
export const loadScopeSchema = z.object(loadScopeFields).superRefine(refineLoadScope);
export type LoadScope = z.infer<typeof loadScopeSchema>;

/** Shown at most: the worst bursts (by expected lateness). */
const MAX_BURSTS = 100;

export const loadPointSchema = z.object({
  at: z.string(),
  /** Due runs in the point's span (a minute; 10 minutes over 7 days). */
  due: z.number().int(),
  /** The busiest minute of the span. */
  peak: z.number().int(),
});

export const loadCurveSchema = z.object({
  /** Span of one point in minutes: 1 over 24 h, 10 over 7 days. */
  pointMinutes: z.number().int(),
  points: z.array(loadPointSchema),
  total: z.number().int(),
  peak: z.object({ at: z.string().nullable(), due: z.number().int() }),
});
export type LoadCurve = z.infer<typeof loadCurveSchema>;

export const loadBurstSchema = z.object({
  group: z.string(),
  at: z.string(),
  due: z.number().int(),
  limit: z.number().int(),
  /** Expected start of the burst's last run after its due minute; null when no run of the group has a measured duration. */
  lastStartLatenessMs: z.number().int().nullable(),
  meanDurationMs: z.number().int().nullable(),
});
export type LoadBurst = z.infer<typeof loadBurstSchema>;

export const loadGroupSchema = z.object({
  name: z.string(),
  limit: z.number().int(),
  startRateLimit: z.object({ maxStarts: z.number().int(), perSeconds: z.number().int() }).nullable(),
  schedules: z.number().int(),
  due: z.number().int(),
  peakPerMinute: z.number().int(),
  bunchedMinutes: z.number().int(),
  worstLatenessMs: z.number().int().nullable(),
  /** Schedules of the group with a measured median duration. */
  durationsMeasured: z.number().int(),
});

export const loadForecastSchema = z.object({
  window: z.enum(["24h", "7d"]),
  by: z.enum(["fleet", "group", "tag"]),
  key: z.string().nullable(),
  from: z.string(),
  until: z.string(),
  schedules: z.number().int(),
  curve: loadCurveSchema,
  groups: z.array(loadGroupSchema),
  bursts: z.array(loadBurstSchema),
  /** What the selectors offer: groups (with a limit or not) and tags of live schedules. */
  options: z.object({ groups: z.array(z.string()), tags: z.array(z.string()) }),
  /** Distinct plans computed (schedules sharing a plan are planned once). */
  plans: z.number().int(),
});
export type LoadForecast = z.infer<typeof loadForecastSchema>;

/** What the forecast reads from the database, once per request. */
export interface LoadFleet {
  window: MinuteWindow;
  schedules: Schedule[];
  calendars: Map<string, CalendarLink[]>;
  groups: Map<string, GroupLimits>;
  durations: Map<string, number | null>;
}

/** The whole fleet read now (the spread preview and apply: nothing kept). */
export async function readLoadFleet(db: Queryable, window: LoadWindow): Promise<LoadFleet> {
  const { rows } = await db.query<{ start: Date }>(`SELECT date_trunc('minute', clock_timestamp()) + interval '1 minute' AS start`);
  return withDurations(db, { startMs: rows[0]!.start.getTime(), minutes: LOAD_WINDOWS[window] }, await readPlanInputs(db));
}

/** What the plan reads of the fleet: every live schedule with its calendar links, and the groups' limits. */
interface PlanInputs {
  schedules: Schedule[];
  calendars: Map<string, CalendarLink[]>;
  groups: Map<string, GroupLimits>;
}

async function readPlanInputs(db: Queryable): Promise<PlanInputs> {
  // Independent reads, in parallel on a pool (a transaction's client runs them one after another).
  const [schedules, groups] = await Promise.all([readSchedules(db, null), readGroups(db)]);
  const calendars = await loadScheduleCalendars(
    db,
    schedules.map((s) => s.schedule.id),
  );
  return { schedules: schedules.map((s) => s.schedule), calendars, groups };
}

/** Live schedules (all, or those of `ids`), with the instant a pause of theirs ends by the clock alone. */
async function readSchedules(db: Queryable, ids: string[] | null): Promise<{ schedule: Schedule; changesAt: number }[]> {
  const { rows } = await db.query<ScheduleRow>(
    `SELECT ${SCHEDULE_COLUMNS} FROM schedules s WHERE s.deleted_at IS NULL ${ids ? "AND s.id = ANY($1::uuid[])" : ""} ORDER BY s.id`,
    ids ? [ids] : [],
  );
  return rows.map((r) => {
    const until = r.paused_until?.getTime();
    return { schedule: toSchedule(r), changesAt: until !== undefined && until > r.read_at.getTime() ? until : Infinity };
  });
}

async function readGroups(db: Queryable): Promise<Map<string, GroupLimits>> {
  const { rows } = await db.query<{ name: string; max_running: number; max_starts: number | null; per_seconds: number | null }>(
    `SELECT name, max_running, max_starts, per_seconds FROM concurrency_groups`,
  );
  return new Map(
    rows.map((g) => [
      g.name,
      {
        limit: g.max_running,
        startRateLimit: g.max_starts && g.per_seconds ? { maxStarts: g.max_starts, perSeconds: g.per_seconds } : null,
      },
    ]),
  );
}

async function withDurations(db: Queryable, window: MinuteWindow, inputs: PlanInputs): Promise<LoadFleet> {
  const { schedules, groups, calendars } = inputs;
  const grouped = schedules.filter((s) => s.concurrencyGroup !== null && groups.has(s.concurrencyGroup)).map((s) => s.id);
  const durations = await medianRunDurations(db, grouped);
  return { window, schedules, calendars, groups, durations };
}

// The plan inputs of the fleet are kept in this process and only what changed is read again. Every request first
// reads a hash of each live schedule's row (a seq scan of schedules that builds no record: tens of ms at 10,000) and
// one of the small tables the plan also reads (calendar links, calendars, groups); then the rows whose hash moved
// are read, and everything when a small table moved. The rows read after the hashes are at least as new as the
// hashes, so a row kept under a hash is never older than it, and a change committed since shows as a new hash.
// planned_through (written by the planner all the time) is left out: the forecast plans from the definition.
// A pause that ends by the clock alone reads differently from then on: such a row is read again once it has ended.
export const ROW_HASH_SQL = `SELECT s.id, hashtextextended(
    (s.id, s.name, s.trigger, s.timezone, s.enabled, s.paused_at, s.paused_by, s.pause_reason, s.paused_until,
     s.misfire_policy, s.catch_up_limit, s.start_jitter_ms, s.concurrency_group, s.tags, s.maintenance_id,
     s.revision, s.starts_at, s.ends_at, s.created_at, s.updated_at)::text, 0)::text AS h
   FROM schedules s WHERE s.deleted_at IS NULL`;
const SHARED_HASH_SQL = `SELECT date_trunc('minute', clock_timestamp()) + interval '1 minute' AS start, clock_timestamp() AS now,
  (SELECT count(*)::text || '.' || coalesce(sum(hashtextextended(x::text, 0)), 0)::text FROM schedule_calendars x)
  || '/' || (SELECT count(*)::text || '.' || coalesce(sum(hashtextextended(c::text, 0)), 0)::text FROM calendars c)
  || '/' || (SELECT count(*)::text || '.' || coalesce(sum(hashtextextended(g::text, 0)), 0)::text FROM concurrency_groups g)
  AS shared`;

interface KeptRow {
  schedule: Schedule;
  hash: string;
  changesAt: number;
}
let kept: { shared: string; rows: Map<string, KeptRow>; inputs: PlanInputs; generation: number } | null = null;
let generations = 0;
// The plans of the kept inputs over the last window asked for, per window length (24 h and 7 days are polled apart).
const keptDue = new Map<number, { generation: number; startMs: number; due: DuePlans }>();
// Answers computed from them (read only by the caller, which serialises them), the oldest dropped first.
const MAX_KEPT_ANSWERS = 20;
const keptAnswers = new Map<string, LoadForecast>();

/** What a forecast request spends where (Server-Timing of GET /api/load-forecast). */
export interface LoadTiming {
  /** The fingerprint statement. */
  checkMs: number;
  /** Reading the plan inputs (0 when the kept ones were still current). */
  readMs: number;
  durationsMs: number;
  planMs: number;
  computeMs: number;
  /** Schedules whose rows were read (0 when nothing changed). */
  reread: number;
}

/** Forget the kept plan inputs (tests). */
export function forgetLoadInputs(): void {
  kept = null;
  keptDue.clear();
  keptAnswers.clear();
}

export function inScope(s: Schedule, scope: Pick<LoadScope, "by" | "key">): boolean {
  if (scope.by === "group") return s.concurrencyGroup === scope.key;
  if (scope.by === "tag") return scope.key !== undefined && s.tags.includes(scope.key);
  return true;
}

/** GET /api/load-forecast: only the plan inputs that changed are read again, the plans are kept per window. */
export async function getLoadForecast(db: Queryable, scope: LoadScope, timing?: LoadTiming): Promise<LoadForecast> {
  let t = performance.now();
  const lap = () => {
    const ms = performance.now() - t;
    t = performance.now();
    return ms;
  };
  const [{ rows: hashes }, { rows: sharedRows }] = await Promise.all([
    db.query<{ id: string; h: string }>(ROW_HASH_SQL),
    db.query<{ start: Date; now: Date; shared: string }>(SHARED_HASH_SQL),
  ]);
  const { start, now, shared } = sharedRows[0]!;
  const checkMs = lap();
  let reread = 0;
  if (!kept || kept.shared !== shared) {
    // A calendar, a link or a group changed (rare, and each may touch many schedules): everything is read again.
    const [rows, groups] = await Promise.all([readSchedules(db, null), readGroups(db)]);
    const calendars = await loadScheduleCalendars(
      db,
      rows.map((r) => r.schedule.id),
    );
    const hashOf = new Map(hashes.map((h) => [h.id, h.h]));
    kept = {
      shared,
      // A row created after the hashes were read has none: it is read again next time.
      rows: new Map(rows.map((r) => [r.schedule.id, { ...r, hash: hashOf.get(r.schedule.id) ?? "" }])),
      inputs: { schedules: rows.map((r) => r.schedule), calendars, groups },
      generation: ++generations,
    };
    reread = rows.length;
  } else {
    const changed = hashes.filter((h) => {
      const k = kept!.rows.get(h.id);
      return !k || k.hash !== h.h || k.changesAt <= now.getTime();
    });
    const removed = hashes.reduce((n, h) => n + (kept!.rows.has(h.id) ? 1 : 0), 0) !== kept.rows.size;
    if (changed.length > 0 || removed) {
      const ids = changed.map((h) => h.id);
      const [fresh, links] = await Promise.all([readSchedules(db, ids), loadScheduleCalendars(db, ids)]);
      const hashOf = new Map(changed.map((h) => [h.id, h.h]));
      const live = new Set(hashes.map((h) => h.id));
      const rows = new Map([...kept.rows].filter(([id]) => live.has(id) && !hashOf.has(id)));
      for (const r of fresh) rows.set(r.schedule.id, { ...r, hash: hashOf.get(r.schedule.id)! });
      const calendars = new Map([...kept.inputs.calendars].filter(([id]) => rows.has(id) && !hashOf.has(id)));
      for (const [id, l] of links) calendars.set(id, l);
      const sorted = [...rows.values()].map((r) => r.schedule).sort((x, y) => (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
      kept = { shared, rows, inputs: { schedules: sorted, calendars, groups: kept.inputs.groups }, generation: ++generations };
      reread = fresh.length;
    }
  }
  const { inputs, generation } = kept;
  const readMs = lap();
  const window = { startMs: start.getTime(), minutes: LOAD_WINDOWS[scope.window] };
  const fleet = await withDurations(db, window, inputs);
  const durationsMs = lap();
  let due = keptDue.get(window.minutes);
  if (!due || due.generation !== generation || due.startMs !== window.startMs) {
    due = { generation, startMs: window.startMs, due: countDueFires(fleet.schedules, fleet.calendars, window) };
    keptDue.set(window.minutes, due);
  }
  const planMs = lap();
  // The answer itself, for the same plans, minute, scope and run durations (a console polling an unchanged fleet).
  let durationsKey = "";
  for (const [id, ms] of fleet.durations) durationsKey += `${id}${ms ?? "-"}`;
  const key = `${generation}\0${window.startMs}\0${window.minutes}\0${scope.by}\0${scope.key ?? ""}\0${durationsKey}`;
  let answer = keptAnswers.get(key);
  if (!answer) {
    answer = computeLoadForecast(fleet, scope, due.due);
    if (keptAnswers.size >= MAX_KEPT_ANSWERS) keptAnswers.delete(keptAnswers.keys().next().value!);
    keptAnswers.set(key, answer);
  }
  if (timing) Object.assign(timing, { checkMs, readMs, durationsMs, planMs, computeMs: lap(), reread });
  return answer;
}

export function computeLoadForecast(
  fleet: LoadFleet,
  scope: LoadScope,
  due: DuePlans = countDueFires(fleet.schedules, fleet.calendars, fleet.window),
): LoadForecast {
  const { window } = fleet;
  const members = due.schedules.filter((p) => inScope(p.schedule, scope));
  const curve = curveOf(due, members, window);
  const touched = new Set(members.map((m) => m.schedule.concurrencyGroup).filter((g): g is string => g !== null));
  const groups: LoadForecast["groups"] = [];
  // Kept raw (minute numbers) until the worst are picked: a backlogged group has a burst in every minute.
  const bursts: { group: string; limit: number; minute: number; due: number; lateness: number | null; mean: number | null }[] = [];
  const byGroup = new Map<string, PlannedSchedule[]>();
  for (const p of due.schedules) {
    const g = p.schedule.concurrencyGroup;
    if (g === null || !touched.has(g)) continue;
    const list = byGroup.get(g);
    if (list) list.push(p);
    else byGroup.set(g, [p]);
  }
  for (const name of [...touched].sort()) {
    const limits = fleet.groups.get(name);
    if (!limits) continue;
    // A group's limit is shared by all of its schedules, in the scope or not.
    const all = byGroup.get(name) ?? [];
    const known = all.map((p) => fleet.durations.get(p.schedule.id)).filter((d): d is number => typeof d === "number");
    const fallback = known.length > 0 ? median(known) : null;
    const groupCurve = curveOf(due, all, window);
    // Summed per plan first: each plan's fires are walked once, whatever the number of schedules sharing it.
    const workPerPlan = new Map<string, number>();
    for (const p of all) {
      const d = fleet.durations.get(p.schedule.id) ?? fallback ?? 0;
      if (d > 0) workPerPlan.set(p.planKey, (workPerPlan.get(p.planKey) ?? 0) + d);
    }
    const work = new Float64Array(window.minutes);
    for (const [key, d] of workPerPlan) for (const minute of due.fires.get(key)!) work[minute]! += d;
    const found = groupBursts(groupCurve, work, limits);
    let worst: number | null = null;
    for (const b of found) {
      const lateness = fallback === null && !limits.startRateLimit ? null : b.lastStartLatenessMs;
      if (lateness !== null) worst = Math.max(worst ?? 0, lateness);
      bursts.push({
        group: name,
        limit: limits.limit,
        minute: b.minute,
        due: b.due,
        lateness,
        mean: fallback === null ? null : b.meanDurationMs,
      });
    }
    groups.push({
      name,
      limit: limits.limit,
      startRateLimit: limits.startRateLimit,
      schedules: members.filter((m) => m.schedule.concurrencyGroup === name).length,
      due: sum(groupCurve),
      peakPerMinute: max(groupCurve),
      bunchedMinutes: found.length,
      worstLatenessMs: worst,
      durationsMeasured: known.length,
    });
  }
  bursts.sort((a, b) => (b.lateness ?? 0) - (a.lateness ?? 0) || b.due - a.due || a.minute - b.minute);
  return {
    window: scope.window,
    by: scope.by,
    key: scope.by === "fleet" ? null : (scope.key ?? null),
    from: new Date(window.startMs).toISOString(),
    until: new Date(window.startMs + window.minutes * MINUTE_MS).toISOString(),
    schedules: members.length,
    curve: toLoadCurve(curve, window),
    groups,
    bursts: bursts.slice(0, MAX_BURSTS).map((b): LoadBurst => ({
      group: b.group,
      at: new Date(window.startMs + b.minute * MINUTE_MS).toISOString(),
      due: b.due,
      limit: b.limit,
      lastStartLatenessMs: b.lateness,
      meanDurationMs: b.mean,
    })),
    options: {
      groups: [...new Set(fleet.schedules.map((s) => s.concurrencyGroup).filter((g): g is string => g !== null))].sort(),
      tags: [...new Set(fleet.schedules.flatMap((s) => s.tags))].sort(),
    },
    plans: due.plans,
  };
}

/** Minutes as points: one per minute over a day, one per 10 minutes (with its busiest minute) over a week. */
export function toLoadCurve(curve: Int32Array, window: MinuteWindow): LoadCurve {
  const pointMinutes = window.minutes > 1440 ? 10 : 1;
  const points: LoadCurve["points"] = [];
  let peakAt: number | null = null;
  let peak = 0;
  for (let i = 0; i < curve.length; i += pointMinutes) {
    let due = 0;
    let top = 0;
    for (let j = i; j < Math.min(curve.length, i + pointMinutes); j++) {
      due += curve[j]!;
      if (curve[j]! > top) top = curve[j]!;
      if (curve[j]! > peak) {
        peak = curve[j]!;
        peakAt = j;
      }
    }
    points.push({ at: new Date(window.startMs + i * MINUTE_MS).toISOString(), due, peak: top });
  }
  return {
    pointMinutes,
    points,
    total: sum(curve),
    peak: { at: peakAt === null ? null : new Date(window.startMs + peakAt * MINUTE_MS).toISOString(), due: peak },
  };
}

function sum(a: Int32Array): number {
  let n = 0;
  for (const v of a) n += v;
  return n;
}

function max(a: Int32Array): number {
  let n = 0;
  for (const v of a) if (v > n) n = v;
  return n;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : Math.round((s[m - 1]! + s[m]!) / 2);
}
