// The timeline's own model: lanes of runs with epoch-millisecond times, sorted by planned time, so drawing
// and hit-testing are plain arithmetic. The API response is mapped into it once per fetch.
import { TERMINAL_STATES } from "@/core/runs/run-states";

export interface TimelineAttempt {
  number: number;
  startedAt: number;
  /** null while the attempt is still running. */
  finishedAt: number | null;
  state: string;
}

export interface TimelineRun {
  /** null for a scheduled run: it is found by its schedule and planned time (see openRun). */
  runId: string | null;
  scheduleId: string;
  kind: string;
  state: string;
  plannedAt: number;
  dueAt: number | null;
  startedAt: number | null;
  finishedAt: number | null;
  latenessMs: number | null;
  attempts: TimelineAttempt[];
}

/** A summary of the runs planned in one time bucket of a lane (when the window holds too many to draw apart). */
export interface TimelineBucket {
  start: number;
  end: number;
  /** The worst state among the bucket's runs (colours its bar). */
  worst: string;
  total: number;
  /** Runs that started late (lateness.ts's rule), and the largest lateness of a run in the bucket. */
  late: number;
  maxLatenessMs: number | null;
  counts: Record<string, number>;
}

/** A fire the plan computes for the future that has no row yet (core/runs/read/timeline-forecast.ts). */
export interface ForecastMark {
  /** When it fires (where a calendar moved it, if one did). */
  plannedAt: number;
  /** The trigger's own instant: differs from plannedAt when a calendar moved the fire. */
  nominalAt: number;
  /** The plan's fate: run, excluded, paused, ended, not_started, dst_skipped … */
  fate: string;
  /** Why it will not run, or how it was moved (one sentence); null for a plain run. */
  reason: string | null;
}

/** A summary of a lane's forecast fires in one time bucket (a dense forecast). */
export interface ForecastBucket {
  start: number;
  end: number;
  total: number;
  counts: Record<string, number>;
}

export interface TimelineLane {
  scheduleId: string;
  name: string;
  paused: boolean;
  /** The schedule's start jitter window: whether a run is late depends on it (core/runs/lateness.ts). */
  startJitterMs: number;
  /** Runs in the lane that started (an attempt ran). */
  started: number;
  /** Sorted by plannedAt. */
  runs: TimelineRun[];
  /** Longest planned → finished (or now) span in the lane: bounds the hit-test scan. */
  maxSpanMs: number;
  /** Set instead of runs when the window is summarised; sorted by start. */
  buckets: TimelineBucket[];
  /** The plan's future fires without a row yet, sorted by plannedAt (or forecastBuckets when dense). */
  forecast: ForecastMark[];
  forecastBuckets: ForecastBucket[];
  /** The forecast was cut at the per-lane cap: fires after this instant are not drawn. */
  forecastCutAt: number | null;
  /** Why its fires would wait queued now ("no live worker [of pool P] serves handler H", worker-pool.ts), or null. */
  noWorker: string | null;
}

export interface TimelineModel {
  from: number;
  to: number;
  /** The database's now when the window was read; drawing running bars and the now-line use it. */
  now: number;
  lanes: TimelineLane[];
  /** "summary": lanes carry buckets, not runs. */
  mode: "runs" | "summary";
  bucketMs: number;
  /** This page of lanes is laneOffset … laneOffset + lanes.length − 1 of laneTotal. */
  laneOffset: number;
  laneTotal: number;
  /** Where the forecast starts (the database's now, or the window's start); undefined: the window has no future. */
  forecastFrom?: number;
  /** Run-after edges: an upstream occurrence's mark to its downstream's (lane indexes, planned instants in ms). */
  edges?: { fromLane: number; fromAt: number; toLane: number; toAt: number }[];
}

/** The legend bucket of forecast marks (a filter like the outcomes). */
export const FORECAST_BUCKET = "forecast";

/** The legend's outcome buckets: every end state (paused has a bucket of its own, beside planned) and running. */
export const TIMELINE_OUTCOMES: readonly string[] = [...TERMINAL_STATES.filter((s) => s !== "paused"), "running"];

/** Which legend bucket a run state is filtered by; waiting states go with "running" (in flight). */
export function outcomeBucket(state: string): string {
  // A queued run has not started: the planner enqueues runs up to 30 s ahead, and the chart draws them as planned
  // markers with no bar. Counted as running, a lane firing every 10 s read "running 3" with nothing running.
  if (state === "queued" || state === "planned") return "planned";
  if (state === "retrying") return "running";
  return state;
}

/** The legend's counts: the runs (or summarised runs) of the lanes shown, by the outcome they are drawn as. */
export function countByOutcome(model: TimelineModel | undefined): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const lane of model?.lanes ?? []) {
    for (const r of lane.runs) counts[outcomeBucket(r.state)] = (counts[outcomeBucket(r.state)] ?? 0) + 1;
    for (const b of lane.buckets)
      for (const [state, n] of Object.entries(b.counts)) counts[outcomeBucket(state)] = (counts[outcomeBucket(state)] ?? 0) + n;
    const forecast = lane.forecast.length + lane.forecastBuckets.reduce((n, b) => n + b.total, 0);
    if (forecast > 0) counts[FORECAST_BUCKET] = (counts[FORECAST_BUCKET] ?? 0) + forecast;
  }
  return counts;
}

export function finishLane(
  scheduleId: string,
  name: string,
  runs: TimelineRun[],
  now: number,
  paused = false,
  startJitterMs = 0,
  buckets: TimelineBucket[] = [],
  future: Partial<Pick<TimelineLane, "forecast" | "forecastBuckets" | "forecastCutAt" | "noWorker">> = {},
): TimelineLane {
  runs.sort((a, b) => a.plannedAt - b.plannedAt);
  let maxSpanMs = 0;
  let started = 0;
  for (const r of runs) {
    if (r.startedAt !== null) started++;
    const end = r.finishedAt ?? (r.startedAt !== null ? now : r.plannedAt);
    maxSpanMs = Math.max(maxSpanMs, end - r.plannedAt);
  }
  for (const b of buckets) started += b.total - (b.counts.planned ?? 0) - (b.counts.missed ?? 0) - (b.counts.skipped_overlap ?? 0);
  return {
    scheduleId,
    name,
    paused,
    startJitterMs,
    started,
    runs,
    maxSpanMs,
    buckets,
    forecast: future.forecast ?? [],
    forecastBuckets: future.forecastBuckets ?? [],
    forecastCutAt: future.forecastCutAt ?? null,
    noWorker: future.noWorker ?? null,
  };
}

/** Index of the first run planned at or after `t` (binary search). */
export function lowerBound(runs: readonly TimelineRun[], t: number): number {
  let lo = 0;
  let hi = runs.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (runs[mid]!.plannedAt < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The run under the pointer at time `t` in a lane. Over the marker band the nearest planned marker within
 * `toleranceMs` wins, over the bar band a bar that contains `t` (within the tolerance); either falls back to
 * the other. Scans only runs that could reach `t` (planned within maxSpanMs before it).
 */
export function hitTest(
  lane: TimelineLane,
  t: number,
  toleranceMs: number,
  now: number,
  accept: (r: TimelineRun) => boolean,
  band: "marker" | "bar" = "bar",
): TimelineRun | null {
  const runs = lane.runs;
  const start = lowerBound(runs, t - lane.maxSpanMs - toleranceMs);
  const end = lowerBound(runs, t + toleranceMs + 1);
  let bar: TimelineRun | null = null;
  let barDist = Infinity;
  let marker: TimelineRun | null = null;
  let markerDist = Infinity;
  for (let i = start; i < end; i++) {
    const r = runs[i]!;
    if (!accept(r)) continue;
    for (const a of r.attempts) {
      const aEnd = a.finishedAt ?? now;
      const d = t < a.startedAt ? a.startedAt - t : t > aEnd ? t - aEnd : 0;
      if (d <= toleranceMs && d < barDist) {
        bar = r;
        barDist = d;
      }
    }
    const dm = Math.abs(r.plannedAt - t);
    if (dm <= toleranceMs && dm < markerDist) {
      marker = r;
      markerDist = dm;
    }
  }
  return band === "marker" ? (marker ?? bar) : (bar ?? marker);
}

/** The bucket of a summarised lane at time `t` (within `toleranceMs` of its edges), or null. */
export function hitBucket(lane: TimelineLane, t: number, toleranceMs: number): TimelineBucket | null {
  return bucketAt(lane.buckets, t, toleranceMs);
}

/** The bucket of sorted, disjoint `bs` covering `t` within `toleranceMs` of its edges (binary search), or null. */
function bucketAt<B extends { start: number; end: number }>(bs: readonly B[], t: number, toleranceMs: number): B | null {
  let lo = 0;
  let hi = bs.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (bs[mid]!.end < t - toleranceMs) lo = mid + 1;
    else hi = mid;
  }
  const b = bs[lo];
  return b && b.start <= t + toleranceMs ? b : null;
}

/** The forecast mark nearest `t` within `toleranceMs` in a lane (binary search), or null. */
export function hitForecast(lane: TimelineLane, t: number, toleranceMs: number): ForecastMark | null {
  const marks = lane.forecast;
  let lo = 0;
  let hi = marks.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (marks[mid]!.plannedAt < t - toleranceMs) lo = mid + 1;
    else hi = mid;
  }
  let best: ForecastMark | null = null;
  for (let i = lo; i < marks.length && marks[i]!.plannedAt <= t + toleranceMs; i++) {
    if (!best || Math.abs(marks[i]!.plannedAt - t) < Math.abs(best.plannedAt - t)) best = marks[i]!;
  }
  return best;
}

/** The forecast bucket of a lane at time `t` (within `toleranceMs` of its edges), or null. */
export function hitForecastBucket(lane: TimelineLane, t: number, toleranceMs: number): ForecastBucket | null {
  return bucketAt(lane.forecastBuckets, t, toleranceMs);
}

/**
 * The model with a dry run's proposed fires (a backfill's or a resume's planned instants) added to one lane's forecast
 * as fate "proposed", so the chart draws what confirming would do beside what exists.
 */
export function withProposed(model: TimelineModel, scheduleId: string, instants: readonly number[]): TimelineModel {
  const proposed = instants.map((at) => ({ plannedAt: at, nominalAt: at, fate: "proposed", reason: "Would be enqueued if you confirm." }));
  return {
    ...model,
    lanes: model.lanes.map((l) =>
      l.scheduleId === scheduleId ? { ...l, forecast: [...l.forecast, ...proposed].sort((a, b) => a.plannedAt - b.plannedAt) } : l,
    ),
  };
}

/** A lane's forecast fires by fate (single marks, or the buckets' counts). */
export function forecastByFate(lane: TimelineLane): Record<string, number> {
  const out: Record<string, number> = {};
  for (const m of lane.forecast) out[m.fate] = (out[m.fate] ?? 0) + 1;
  for (const b of lane.forecastBuckets) for (const [fate, n] of Object.entries(b.counts)) out[fate] = (out[fate] ?? 0) + n;
  return out;
}

/** Runs counted in a lane (single runs, or the buckets' totals). */
export function laneOccurrences(lane: TimelineLane): number {
  return lane.runs.length + lane.buckets.reduce((n, b) => n + b.total, 0);
}

const STEPS_MS = [1, 5, 10, 15, 30]
  .map((m) => m * 60_000)
  .concat([1, 2, 3, 6, 12].map((h) => h * 3_600_000))
  .concat([1, 2, 7].map((d) => d * 86_400_000));

/** Round-number time ticks for the axis, aligned to the viewer's wall clock, about `target` of them. */
export function timeTicks(from: number, to: number, target = 10, tzOffsetMinutes = new Date(from).getTimezoneOffset()): number[] {
  const span = to - from;
  const step = STEPS_MS.find((s) => span / s <= target) ?? STEPS_MS.at(-1)!;
  const shift = -tzOffsetMinutes * 60_000;
  const first = Math.ceil((from + shift) / step) * step - shift;
  const ticks: number[] = [];
  for (let t = first; t <= to; t += step) ticks.push(t);
  return ticks;
}

/** Index of the next (dir 1) or previous (dir −1) accepted run after `index` in a lane, or null at the end. */
export function stepRun(lane: TimelineLane, index: number, dir: 1 | -1, accept: (r: TimelineRun) => boolean): number | null {
  for (let i = index + dir; i >= 0 && i < lane.runs.length; i += dir) if (accept(lane.runs[i]!)) return i;
  return null;
}

/** Index of the accepted run planned nearest to `t` in a lane, or null when none is accepted. */
export function nearestRun(lane: TimelineLane, t: number, accept: (r: TimelineRun) => boolean): number | null {
  const at = lowerBound(lane.runs, t);
  const after = at < lane.runs.length && accept(lane.runs[at]!) ? at : stepRun(lane, at, 1, accept);
  const before = stepRun(lane, at, -1, accept);
  if (after === null) return before;
  if (before === null) return after;
  return Math.abs(lane.runs[after]!.plannedAt - t) <= Math.abs(lane.runs[before]!.plannedAt - t) ? after : before;
}
