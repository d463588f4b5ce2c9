"use client";
import { memo, useMemo, useRef, useState, type PointerEvent } from "react";
import { usePlotArea, ZIndexLayer } from "recharts";
import { buildTimelinePaths, PATH_SCALE } from "./build-timeline-paths";
import { hitTest, outcomeBucket, type TimelineLane, type TimelineModel, type TimelineRun } from "./timeline-model";

export interface HoverInfo {
  run: TimelineRun;
  lane: TimelineLane;
  clientX: number;
  clientY: number;
}

interface Props {
  model: TimelineModel;
  visible: ReadonlySet<string>;
  onHover: (info: HoverInfo | null) => void;
  onOpen: (run: TimelineRun) => void;
  onZoom: (from: number, to: number) => void;
}

const HIT_PX = 6;

/**
 * The dense layer inside the recharts chart: planned markers, attempt bars and late-start connectors as a few
 * merged paths (see buildTimelinePaths), plus one transparent rectangle that does hover, click-to-open and
 * drag-to-zoom by arithmetic instead of per-mark event handlers.
 */
export const TimelineMarks = memo(function TimelineMarks({ model, visible, onHover, onOpen, onZoom }: Props) {
  const plot = usePlotArea();
  const [drag, setDrag] = useState<{ x0: number; x1: number } | null>(null);
  const downAt = useRef<number | null>(null);
  const paths = useMemo(
    () => {
      if (!plot) return [];
      const start = performance.now();
      const built = buildTimelinePaths(model, plot, visible);
      // Read by e2e/timeline-perf.spec.ts to report where render time goes.
      performance.measure("vigil:timeline-paths", { start });
      return built;
    },
    // plot is a fresh object on each render; its numbers are what matter.
    [model, visible, plot?.x, plot?.y, plot?.width, plot?.height],
  );
  if (!plot) return null;
  const { from, to, now, lanes } = model;
  const laneH = plot.height / Math.max(lanes.length, 1);
  // Every other lane shaded, so a mark can be followed to its schedule's label across a wide chart.
  let stripes = "";
  for (let i = 1; i < lanes.length; i += 2) stripes += `M${plot.x} ${plot.y + i * laneH}h${plot.width}v${laneH}h${-plot.width}Z`;
  const msPerPx = (to - from) / plot.width;

  function locate(e: PointerEvent<SVGRectElement>): { x: number; run: TimelineRun | null; lane: TimelineLane | null } {
    const box = e.currentTarget.getBoundingClientRect();
    const x = e.clientX - box.left;
    const y = e.clientY - box.top;
    const lanePos = (y / box.height) * lanes.length;
    const lane = lanes[Math.floor(lanePos)] ?? null;
    if (!lane) return { x, run: null, lane: null };
    const t = from + x * msPerPx;
    // Markers sit in the top part of a lane (see buildTimelinePaths), bars below them.
    const band = lanePos - Math.floor(lanePos) < 0.42 ? "marker" : "bar";
    const run = hitTest(lane, t, HIT_PX * msPerPx, now, (r) => visible.has(outcomeBucket(r.state)), band);
    return { x, run, lane };
  }

  return (
    <ZIndexLayer zIndex={300}>
      <g data-testid="timeline-marks">
        <path d={stripes} fill="rgba(255,255,255,0.025)" data-mark="stripes" />
        <g transform={`scale(${1 / PATH_SCALE})`}>
          {paths.map((p) => (
            <path key={p.key} data-mark={p.key} d={p.d} fill={p.fill} stroke={p.stroke} strokeWidth={p.strokeWidth} />
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
        <rect
          data-testid="timeline-hit-area"
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
            onHover(hit.run && hit.lane ? { run: hit.run, lane: hit.lane, clientX: e.clientX, clientY: e.clientY } : null);
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
