"use client";
import { memo, useEffect, useMemo, useRef, useState, type KeyboardEvent, type PointerEvent } from "react";
import { usePlotArea, ZIndexLayer } from "recharts";
import { buildTimelinePaths, PATH_SCALE } from "./build-timeline-paths";
import {
  FORECAST_BUCKET,
  hitBucket,
  hitForecast,
  hitForecastBucket,
  hitTest,
  nearestRun,
  outcomeBucket,
  stepRun,
  type ForecastBucket,
  type ForecastMark,
  type TimelineBucket,
  type TimelineLane,
  type TimelineModel,
  type TimelineRun,
} from "./timeline-model";

/** What the pointer is over: one run, one forecast fire, or (summarised) one time bucket of a lane's runs or forecast. */
export type HoverInfo = { lane: TimelineLane; clientX: number; clientY: number } & (
  | { run: TimelineRun; bucket?: undefined; forecast?: undefined; forecastBucket?: undefined }
  | { run?: undefined; bucket: TimelineBucket; forecast?: undefined; forecastBucket?: undefined }
  | { run?: undefined; bucket?: undefined; forecast: ForecastMark; forecastBucket?: undefined }
  | { run?: undefined; bucket?: undefined; forecast?: undefined; forecastBucket: ForecastBucket }
);

/** Buckets on either side of a clicked one that the zoom keeps in view. */
const ZOOM_BUCKETS_AROUND = 10;

interface Props {
  model: TimelineModel;
  visible: ReadonlySet<string>;
  onHover: (info: HoverInfo | null) => void;
  onOpen: (run: TimelineRun) => void;
  onZoom: (from: number, to: number) => void;
  /**
   * Where the plot area starts once the axes are laid out. recharts first reports a plot area without them
   * (the whole chart); building thousands of marks for that one would be thrown away a frame later.
   */
  plotStart: { x: number; y: number };
}

const HIT_PX = 6;

/**
 * The dense layer inside the recharts chart: planned markers, attempt bars and late-start connectors as a few
 * merged paths (see buildTimelinePaths), plus one transparent rectangle that does hover, click-to-open and
 * drag-to-zoom by arithmetic instead of per-mark event handlers.
 */
export const TimelineMarks = memo(function TimelineMarks({ model, visible, onHover, onOpen, onZoom, plotStart }: Props) {
  const area = usePlotArea();
  const plot = area && area.x >= plotStart.x && area.y >= plotStart.y ? area : undefined;
  const [drag, setDrag] = useState<{ x0: number; x1: number } | null>(null);
  const downAt = useRef<number | null>(null);
  const paths = useMemo(
    () => {
      if (!plot) return [];
      const start = performance.now();
      const built = buildTimelinePaths(model, plot, visible);
      // Read by e2e/timeline-perf.spec.ts to report where render time goes.
      performance.measure("vigil:timeline-paths", { start, detail: { x: plot.x, y: plot.y, width: plot.width, height: plot.height } });
      return built;
    },
    // plot is a fresh object on each render; its numbers are what matter.
    [model, visible, plot?.x, plot?.y, plot?.width, plot?.height],
  );
  // The run the keyboard is on (arrow keys move it, Enter opens it), kept by schedule and planned time so a
  // refresh that adds or drops runs does not move it to another run.
  const [focus, setFocus] = useState<{ scheduleId: string; plannedAt: number } | null>(null);
  const drawn = useRef(false);
  useEffect(() => {
    if (drawn.current || paths.length === 0) return;
    drawn.current = true;
    // After the frame that paints the first marks: e2e/timeline-perf.spec.ts reads it (time since navigation).
    requestAnimationFrame(() => setTimeout(() => performance.mark("vigil:timeline-drawn")));
  }, [paths]);
  if (!plot) return null;
  const { from, to, now, lanes } = model;
  const laneH = plot.height / Math.max(lanes.length, 1);
  // Every other lane shaded, so a mark can be followed to its schedule's label across a wide chart.
  let stripes = "";
  for (let i = 1; i < lanes.length; i += 2) stripes += `M${plot.x} ${plot.y + i * laneH}h${plot.width}v${laneH}h${-plot.width}Z`;
  const msPerPx = (to - from) / plot.width;
  // Run-after edges, one path: from the upstream occurrence's planned mark to its downstream's.
  let edges = "";
  for (const e of model.edges ?? []) {
    const x1 = plot.x + ((e.fromAt - from) / (to - from)) * plot.width;
    const x2 = plot.x + ((e.toAt - from) / (to - from)) * plot.width;
    edges += `M${x1.toFixed(1)} ${(plot.y + (e.fromLane + 0.5) * laneH).toFixed(1)}L${x2.toFixed(1)} ${(plot.y + (e.toLane + 0.5) * laneH).toFixed(1)}`;
  }

  function locate(e: PointerEvent<SVGRectElement>): {
    x: number;
    run: TimelineRun | null;
    lane: TimelineLane | null;
    bucket?: TimelineBucket | null;
    forecast?: ForecastMark | null;
    forecastBucket?: ForecastBucket | null;
  } {
    const box = e.currentTarget.getBoundingClientRect();
    const x = e.clientX - box.left;
    const y = e.clientY - box.top;
    const lanePos = (y / box.height) * lanes.length;
    const lane = lanes[Math.floor(lanePos)] ?? null;
    if (!lane) return { x, run: null, lane: null };
    const t = from + x * msPerPx;
    // A lane's forecast (and a dry run's proposed fires): fires with no row yet (rows win where both are near).
    const future = visible.has(FORECAST_BUCKET) && (lane.forecast.length > 0 || lane.forecastBuckets.length > 0);
    const forecast = future ? hitForecast(lane, t, HIT_PX * msPerPx) : null;
    const forecastBucket = future && !forecast ? hitForecastBucket(lane, t, 2 * msPerPx) : null;
    if (lane.buckets.length > 0) {
      const bucket = hitBucket(lane, t, 2 * msPerPx);
      return bucket || !(forecast || forecastBucket) ? { x, run: null, lane, bucket } : { x, run: null, lane, forecast, forecastBucket };
    }
    // Markers sit in the top part of a lane (see buildTimelinePaths), bars below them.
    const band = lanePos - Math.floor(lanePos) < 0.42 ? "marker" : "bar";
    const run = hitTest(lane, t, HIT_PX * msPerPx, now, (r) => visible.has(outcomeBucket(r.state)), band);
    return run || !(forecast || forecastBucket) ? { x, run, lane } : { x, run: null, lane, forecast, forecastBucket };
  }

  const accept = (r: TimelineRun) => visible.has(outcomeBucket(r.state));
  /** Where a time sits across the plot, 0 to 1 (clamped to the window). */
  const across = (t: number) => (Math.min(Math.max(t, from), to) - from) / (to - from);
  const focusLane = focus ? lanes.findIndex((l) => l.scheduleId === focus.scheduleId) : -1;
  const focusIndex = focusLane >= 0 ? nearestRun(lanes[focusLane]!, focus!.plannedAt, accept) : null;
  const here = focusIndex !== null ? { lane: focusLane, index: focusIndex } : null;
  const focused = here ? lanes[here.lane]!.runs[here.index]! : null;

  /** Shows the hover card for the keyboard's run, placed at its marker. */
  function showFocused(el: SVGRectElement, laneIndex: number, index: number): void {
    const lane = lanes[laneIndex]!;
    const run = lane.runs[index]!;
    const box = el.getBoundingClientRect();
    onHover({
      run,
      lane,
      clientX: box.left + across(run.plannedAt) * box.width,
      clientY: box.top + (laneIndex + 0.5) * (box.height / lanes.length),
    });
  }

  function onKeyDown(e: KeyboardEvent<SVGRectElement>): void {
    if (lanes.length === 0) return;
    let next: { lane: number; index: number } | null = null;
    if (e.key === "Enter" || e.key === " ") {
      if (focused) onOpen(focused);
      e.preventDefault();
      return;
    }
    if (e.key === "Escape") {
      setFocus(null);
      onHover(null);
      return;
    }
    if (e.key === "ArrowRight" || e.key === "ArrowLeft") {
      const dir = e.key === "ArrowRight" ? 1 : -1;
      if (here) {
        const i = stepRun(lanes[here.lane]!, here.index, dir, accept);
        next = i === null ? here : { lane: here.lane, index: i };
      }
    } else if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      const dir = e.key === "ArrowDown" ? 1 : -1;
      const t = focused?.plannedAt ?? now;
      // The nearest lane in that direction with a run to stand on.
      for (let l = (here?.lane ?? (dir === 1 ? -1 : lanes.length)) + dir; l >= 0 && l < lanes.length; l += dir) {
        const i = nearestRun(lanes[l]!, t, accept);
        if (i !== null) {
          next = { lane: l, index: i };
          break;
        }
      }
      next ??= here;
    } else {
      return;
    }
    e.preventDefault();
    if (!next && !here) {
      // First key press: the run nearest now in the first lane that has one.
      for (let l = 0; l < lanes.length && !next; l++) {
        const i = nearestRun(lanes[l]!, Math.min(now, to), accept);
        if (i !== null) next = { lane: l, index: i };
      }
    }
    if (!next) return;
    const lane = lanes[next.lane]!;
    setFocus({ scheduleId: lane.scheduleId, plannedAt: lane.runs[next.index]!.plannedAt });
    showFocused(e.currentTarget, next.lane, next.index);
  }

  const ring = focused && here ? { x: plot.x + across(focused.plannedAt) * plot.width, y: plot.y + (here.lane + 0.5) * laneH } : null;

  return (
    <ZIndexLayer zIndex={300}>
      <g data-testid="timeline-marks">
        <path d={stripes} fill="rgba(255,255,255,0.025)" data-mark="stripes" />
        {edges && (
          <path
            d={edges}
            fill="none"
            stroke="#d2a8ff"
            strokeWidth={1.5}
            strokeOpacity={0.8}
            data-mark="chain-edges"
            data-testid="timeline-chain-edges"
          />
        )}
        <g transform={`scale(${1 / PATH_SCALE})`}>
          {paths.map((p) => (
            <path
              key={p.key}
              data-mark={p.key}
              d={p.d}
              fill={p.fill}
              stroke={p.stroke}
              strokeWidth={p.strokeWidth}
              strokeDasharray={p.dash}
            />
          ))}
        </g>
        {drag && (
          <rect
            x={plot.x + Math.min(drag.x0, drag.x1)}
            y={plot.y}
            width={Math.abs(drag.x1 - drag.x0)}
            height={plot.height}
            fill="rgba(78,161,255,0.15)"
            stroke="#4ea1ff"
          />
        )}
        {ring && (
          <circle
            cx={ring.x}
            cy={ring.y}
            r={Math.min(9, laneH / 2)}
            fill="none"
            style={{ stroke: "var(--text)" }}
            strokeWidth={2}
            data-testid="timeline-focus"
            pointerEvents="none"
          />
        )}
        <rect
          data-testid="timeline-hit-area"
          tabIndex={0}
          role="application"
          aria-roledescription="timeline"
          aria-label="Runs on the timeline. Arrow keys move between runs (left, right) and schedules (up, down); Enter opens the run; Escape leaves."
          onKeyDown={onKeyDown}
          onBlur={() => onHover(null)}
          x={plot.x}
          y={plot.y}
          width={plot.width}
          height={plot.height}
          fill="transparent"
          style={{ cursor: "crosshair" }}
          onPointerDown={(e) => {
            const { x } = locate(e);
            downAt.current = x;
            e.currentTarget.setPointerCapture(e.pointerId);
          }}
          onPointerMove={(e) => {
            const hit = locate(e);
            if (downAt.current !== null && Math.abs(hit.x - downAt.current) > 4) {
              setDrag({ x0: downAt.current, x1: hit.x });
              onHover(null);
              return;
            }
            if (hit.forecast && hit.lane) onHover({ forecast: hit.forecast, lane: hit.lane, clientX: e.clientX, clientY: e.clientY });
            else if (hit.forecastBucket && hit.lane)
              onHover({ forecastBucket: hit.forecastBucket, lane: hit.lane, clientX: e.clientX, clientY: e.clientY });
            else if (hit.bucket && hit.lane) onHover({ bucket: hit.bucket, lane: hit.lane, clientX: e.clientX, clientY: e.clientY });
            else onHover(hit.run && hit.lane ? { run: hit.run, lane: hit.lane, clientX: e.clientX, clientY: e.clientY } : null);
          }}
          onPointerUp={(e) => {
            const hit = locate(e);
            const x0 = downAt.current;
            downAt.current = null;
            setDrag(null);
            if (x0 !== null && Math.abs(hit.x - x0) > 4) {
              const a = from + Math.min(x0, hit.x) * msPerPx;
              const b = from + Math.max(x0, hit.x) * msPerPx;
              onZoom(a, b);
            } else if (hit.bucket ?? hit.forecastBucket) {
              // A summary bucket opens nothing: it zooms in around itself, towards single runs (or fires).
              const b = (hit.bucket ?? hit.forecastBucket)!;
              const around = ZOOM_BUCKETS_AROUND * (b.end - b.start);
              onHover(null);
              onZoom(Math.max(from, b.start - around), Math.min(to, b.end + around));
            } else if (hit.run) {
              onOpen(hit.run);
            }
          }}
          onPointerLeave={() => onHover(null)}
        />
      </g>
    </ZIndexLayer>
  );
});
