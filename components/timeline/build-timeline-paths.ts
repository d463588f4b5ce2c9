// Turns a timeline model into a handful of SVG paths, one per colour and style, instead of one element per
// mark: 50 lanes × 7 h at one fire a minute is ~21,000 runs, which as React elements freezes the page but as
// ~20 path strings draws in milliseconds. Marks closer than a pixel are merged, which is the aggregation when
// zoomed out.
import { isLate } from "@/core/runs/lateness";
import { WORST_STATE_ORDER } from "@/core/runs/run-states";
import { stateStyle } from "../ui/run-state-style";
import { forecastStyle } from "./forecast-style";
import { FORECAST_BUCKET, lowerBound, outcomeBucket, type TimelineLane, type TimelineModel, type TimelineRun } from "./timeline-model";

export interface PlotArea {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface TimelinePath {
  key: string;
  d: string;
  fill: string;
  stroke: string;
  strokeWidth: number;
  /** stroke-dasharray, in the layer's tenths of a pixel. */
  dash?: string;
}

export const MARKER_COLOR = "#8b98a8";
const MIN_TRIANGLE_SPACING_PX = 6;
export const LATE_COLOR = "#d29922";

/** States drawn as a coloured marker (they never started, so there is no bar to colour). */
const MARKER_OUTCOMES = new Set(["missed", "skipped_overlap", "paused", "excluded"]);

/**
 * Coordinates are written in tenths of a pixel as integers (the layer is drawn with scale(0.1)): formatting
 * integers is several times cheaper than decimals, and this runs ~40,000 times per redraw.
 */
export const PATH_SCALE = 10;
const r1 = (n: number) => Math.round(n * PATH_SCALE);

class PathSet {
  private readonly parts = new Map<string, string[]>();
  private readonly pending = new Map<string, { x1: number; x2: number; y: number; h: number }>();

  /** A rectangle; one starting within `joinPx` of the previous one of the same key and row extends it. */
  rect(key: string, x1: number, x2: number, y: number, h: number, joinPx = 1): void {
    const p = this.pending.get(key);
    if (p && p.y === y && x1 <= p.x2 + joinPx && x1 >= p.x1) {
      p.x2 = Math.max(p.x2, x2);
      return;
    }
    if (p) this.emitRect(key, p);
    this.pending.set(key, { x1, x2, y, h });
  }

  raw(key: string, d: string): void {
    let list = this.parts.get(key);
    if (!list) this.parts.set(key, (list = []));
    list.push(d);
  }

  flush(): void {
    for (const [key, p] of this.pending) this.emitRect(key, p);
    this.pending.clear();
  }

  private emitRect(key: string, p: { x1: number; x2: number; y: number; h: number }): void {
    this.raw(key, `M${r1(p.x1)} ${r1(p.y)}h${r1(Math.max(p.x2 - p.x1, 0.1))}v${r1(p.h)}h${r1(-Math.max(p.x2 - p.x1, 0.1))}Z`);
  }

  entries(): [string, string][] {
    this.flush();
    return [...this.parts].map(([k, v]) => [k, v.join("")]);
  }
}

/** Colour of one attempt's bar: the run's outcome on its last attempt, the attempt's own state before. */
function attemptColorKey(run: TimelineRun, attemptIndex: number): string {
  const last = attemptIndex === run.attempts.length - 1;
  const a = run.attempts[attemptIndex]!;
  if (a.finishedAt === null) return "running";
  if (!last) return a.state === "succeeded" ? "failed" : a.state;
  if (run.state === "retrying" || run.state === "queued") return a.state === "succeeded" ? "failed" : a.state;
  return run.state;
}

export function buildTimelinePaths(model: TimelineModel, plot: PlotArea, visible: ReadonlySet<string>): TimelinePath[] {
  const { from, to, now, lanes } = model;
  if (lanes.length === 0 || plot.width <= 0) return [];
  const pxPerMs = plot.width / (to - from);
  const xOf = (t: number) => plot.x + (Math.min(Math.max(t, from), to) - from) * pxPerMs;
  const laneH = plot.height / lanes.length;
  const set = new PathSet();

  lanes.forEach((lane, i) => {
    const y0 = plot.y + i * laneH;
    const markTop = y0 + laneH * 0.1;
    const markH = Math.max(laneH * 0.28, 3);
    const barTop = y0 + laneH * 0.45;
    const barH = Math.max(laneH * 0.42, 3);
    if (visible.has(FORECAST_BUCKET))
      drawForecast(set, lane, { xOf, from, to, laneH, markTop, markH, barTop, barH, plotWidth: plot.width });
    if (lane.buckets.length > 0) {
      drawBuckets(set, lane, visible, { xOf, pxPerMs, markTop, markH, barTop, barH });
      return;
    }
    let lastMarkerX = -Infinity;
    let lastMarkerKey = "";
    // Zoomed out, markers closer than a triangle's width merge into a tick strip (one rectangle per run of
    // adjacent fires) instead of thousands of overlapping triangles.
    const inView = lane.runs.length - lowerBound(lane.runs, from);
    const dense = inView > 0 && plot.width / inView < MIN_TRIANGLE_SPACING_PX;
    for (const run of lane.runs) {
      const bucket = outcomeBucket(run.state);
      if (!visible.has(bucket)) continue;
      const endOfRun = run.finishedAt ?? (run.startedAt !== null ? now : run.plannedAt);
      if (endOfRun < from || run.plannedAt > to) continue;

      // Planned marker: a downward triangle at the planned instant.
      const mx = xOf(run.plannedAt);
      const markerKey = MARKER_OUTCOMES.has(run.state) ? `marker:${run.state}` : "marker:planned";
      if (run.plannedAt >= from && dense) {
        set.rect(markerKey, mx - 0.75, mx + 0.75, markTop, markH * 0.7, MIN_TRIANGLE_SPACING_PX);
      } else if (run.plannedAt >= from && (mx - lastMarkerX >= 1 || markerKey !== lastMarkerKey)) {
        const w = Math.min(4, Math.max(laneH * 0.18, 2));
        set.raw(markerKey, `M${r1(mx - w)} ${r1(markTop)}h${r1(2 * w)}l${r1(-w)} ${r1(markH)}Z`);
        lastMarkerX = mx;
        lastMarkerKey = markerKey;
      }
      if (MARKER_OUTCOMES.has(run.state)) {
        set.rect(`stub:${run.state}`, mx - 1, mx + 1, barTop, barH);
        continue;
      }

      // Late start: a connector from the marker to where the bar really begins, so the offset is visible.
      const firstStart = run.attempts[0]?.startedAt ?? run.startedAt;
      if (firstStart !== null && isLate(run.latenessMs ?? firstStart - run.plannedAt, lane.startJitterMs)) {
        const sx = xOf(firstStart);
        if (sx - mx >= 2) set.raw("late", `M${r1(mx)} ${r1(markTop + markH)}V${r1(barTop + barH / 2)}H${r1(sx)}`);
      }

      run.attempts.forEach((a, ai) => {
        const x1 = xOf(a.startedAt);
        const x2 = Math.max(xOf(a.finishedAt ?? now), x1 + 2);
        const key = attemptColorKey(run, ai);
        set.rect(key === "hollow" ? "outline:hollow" : `bar:${key}`, x1, x2, barTop, barH);
      });
    }
    set.flush();
  });

  // Common outcomes first, trouble on top: a merged band of successes never hides a failure.
  return set
    .entries()
    .sort((a, b) => drawRank(a[0]) - drawRank(b[0]))
    .map(([key, d]) => {
      const [kind, state] = key.split(":") as [string, string | undefined];
      if (kind === "late") return { key, d, fill: "none", stroke: LATE_COLOR, strokeWidth: 1 * PATH_SCALE };
      if (kind === "fccut")
        return { key, d, fill: "none", stroke: MARKER_COLOR, strokeWidth: 1 * PATH_SCALE, dash: `${4 * PATH_SCALE} ${3 * PATH_SCALE}` };
      if (kind.startsWith("fc")) {
        // Forecast: outline only, never filled, so it cannot be taken for a planned row or a run.
        const dashed = kind === "fcsum" || kind === "fcstub";
        const path: TimelinePath = { key, d, fill: "none", stroke: forecastStyle(state ?? "").color, strokeWidth: 1.3 * PATH_SCALE };
        return dashed ? { ...path, dash: `${3 * PATH_SCALE} ${2 * PATH_SCALE}` } : path;
      }
      if (kind === "marker" && state === "planned") return { key, d, fill: MARKER_COLOR, stroke: "none", strokeWidth: 0 };
      const color = stateStyle(state ?? "").color;
      if (kind === "outline") return { key, d, fill: "none", stroke: color, strokeWidth: 1.5 * PATH_SCALE };
      return { key, d, fill: color, stroke: "none", strokeWidth: 0 };
    });
}

/**
 * A summarised lane: per bucket a tick in the marker band (occurrences were planned), a bar across the bucket in
 * the colour of its worst outcome among the visible ones, a missed marker where a run was missed, and a late
 * connector from the bucket's start as long as its largest lateness — the planned-versus-actual reading at a
 * zoom where single runs would be sub-pixel.
 */
function drawBuckets(
  set: PathSet,
  lane: TimelineModel["lanes"][number],
  visible: ReadonlySet<string>,
  g: { xOf: (t: number) => number; pxPerMs: number; markTop: number; markH: number; barTop: number; barH: number },
): void {
  for (const b of lane.buckets) {
    let worst: string | null = null;
    for (const state of WORST_STATE_ORDER) {
      if ((b.counts[state] ?? 0) > 0 && visible.has(outcomeBucket(state))) {
        worst = state;
        break;
      }
    }
    if (worst === null) continue;
    const x1 = g.xOf(b.start);
    const x2 = Math.max(g.xOf(b.end) - 0.5, x1 + 1);
    set.rect("marker:planned", x1, x2, g.markTop, g.markH * 0.5, 1);
    if ((b.counts.missed ?? 0) > 0 && visible.has("missed")) {
      const mx = (x1 + x2) / 2;
      const w = 3;
      set.raw("marker:missed", `M${r1(mx - w)} ${r1(g.markTop)}h${r1(2 * w)}l${r1(-w)} ${r1(g.markH)}Z`);
    }
    if (worst === "planned") continue;
    const key = worst === "hollow" ? "outline:hollow" : MARKER_OUTCOMES.has(worst) ? `stub:${worst}` : `bar:${worst}`;
    set.rect(key, x1, x2, g.barTop, g.barH, 0.6);
    if (b.late > 0 && b.maxLatenessMs !== null) {
      const len = Math.max(b.maxLatenessMs * g.pxPerMs, 3);
      set.raw("late", `M${r1(x1)} ${r1(g.markTop + g.markH * 0.5)}V${r1(g.barTop + g.barH / 2)}h${r1(len)}`);
    }
  }
  set.flush();
}

/**
 * A lane's forecast: a hollow triangle per fire (a hollow strip where they are closer than a triangle's width), a
 * dashed hollow stub below the fires that will not run, a dashed outline per bucket when summarised (in the colour
 * of its most telling fate: one that will not run before one that will), and a dashed line where the lane's
 * forecast was cut at the cap.
 */
function drawForecast(
  set: PathSet,
  lane: TimelineLane,
  g: {
    xOf: (t: number) => number;
    from: number;
    to: number;
    laneH: number;
    markTop: number;
    markH: number;
    barTop: number;
    barH: number;
    plotWidth: number;
  },
): void {
  const inView = lane.forecast.length;
  const dense = inView > 0 && g.plotWidth / inView < MIN_TRIANGLE_SPACING_PX;
  let lastX = -Infinity;
  let lastFate = "";
  const w = Math.min(4, Math.max(g.laneH * 0.18, 2));
  for (const m of lane.forecast) {
    if (m.plannedAt < g.from || m.plannedAt > g.to) continue;
    const mx = g.xOf(m.plannedAt);
    if (dense) set.rect(`fcstrip:${m.fate}`, mx - 0.75, mx + 0.75, g.markTop, g.markH * 0.7, MIN_TRIANGLE_SPACING_PX);
    else if (mx - lastX >= 1 || m.fate !== lastFate) {
      set.raw(`fc:${m.fate}`, `M${r1(mx - w)} ${r1(g.markTop)}h${r1(2 * w)}l${r1(-w)} ${r1(g.markH)}Z`);
      lastX = mx;
      lastFate = m.fate;
    }
    if (m.fate !== "run") set.rect(`fcstub:${m.fate}`, mx - 1.5, mx + 1.5, g.barTop, g.barH, 1);
  }
  for (const b of lane.forecastBuckets) {
    const fate = Object.keys(b.counts).find((f) => f !== "run") ?? "run";
    const x1 = g.xOf(b.start);
    const x2 = Math.max(g.xOf(b.end) - 0.5, x1 + 1);
    set.rect(`fcsum:${fate}`, x1, x2, g.markTop, g.markH, 0.6);
  }
  if (lane.forecastCutAt !== null && lane.forecastCutAt < g.to) {
    const x = g.xOf(lane.forecastCutAt);
    set.raw("fccut", `M${r1(x)} ${r1(g.markTop)}V${r1(g.barTop + g.barH)}`);
  }
  set.flush();
}

const DRAW_ORDER = [
  "marker:planned",
  "bar:succeeded",
  "bar:cancelled",
  "bar:running",
  "bar:retrying",
  "bar:queued",
  "outline:hollow",
  "bar:failed",
  "bar:timed_out",
  "bar:zombie",
  "marker:paused",
  "stub:paused",
  "marker:excluded",
  "stub:excluded",
  "marker:skipped_overlap",
  "stub:skipped_overlap",
  "marker:missed",
  "stub:missed",
  "late",
];

function drawRank(key: string): number {
  const i = DRAW_ORDER.indexOf(key);
  return i === -1 ? DRAW_ORDER.indexOf("bar:failed") : i;
}
