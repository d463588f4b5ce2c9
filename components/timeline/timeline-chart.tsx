"use client";
import { memo, useCallback, useMemo, useRef } from "react";
import { useRouter } from "next/navigation";
import { ComposedChart, ReferenceArea, ReferenceLine, XAxis, YAxis } from "recharts";
import { useElementWidth } from "../ui/use-element-width";
import { formatDayClock, formatHourMinute } from "../ui/time-format";
import { TimelineMarks, type HoverInfo } from "./timeline-marks";
import { forecastByFate, laneOccurrences, timeTicks, type TimelineModel, type TimelineRun } from "./timeline-model";
import { timelineRunId } from "./timeline-queries";
import { TimelineTooltip, type TimelineTooltipHandle } from "./timeline-tooltip";

interface Props {
  model: TimelineModel;
  /** Database now of the latest fetch: the now-line moves even when the marks are unchanged. */
  now: number;
  visible: ReadonlySet<string>;
  onZoom: (from: number, to: number) => void;
}

const MARGIN = { top: 8, right: 24, bottom: 18, left: 8 };

/** Few lanes get room to read a bar; fifty stay compact enough to compare at a glance. */
function lanePx(n: number): number {
  return n <= 4 ? 48 : n <= 12 ? 34 : 26;
}
const LABEL_WIDTH = 190;
const X_AXIS_HEIGHT = 24;
const PLOT_START = { x: MARGIN.left + LABEL_WIDTH, y: MARGIN.top + X_AXIS_HEIGHT };

function LaneTick(props: { x?: number; y?: number; payload?: { value: number }; lanes: TimelineModel["lanes"] }) {
  const { x = 0, y = 0, payload, lanes } = props;
  const lane = lanes[Math.floor(payload?.value ?? -1)];
  if (!lane) return null;
  const ran = lane.started;
  const shown = lane.paused ? `‖ ${lane.name}` : lane.name;
  const label = shown.length > 26 ? `${shown.slice(0, 25)}…` : shown;
  const fates = forecastByFate(lane);
  const forecast = Object.values(fates).reduce((n, v) => n + v, 0);
  return (
    <a
      href={`/schedules/${lane.scheduleId}`}
      data-testid="timeline-lane"
      data-schedule={lane.name}
      data-occurrences={laneOccurrences(lane)}
      data-ran={ran}
      data-forecast={forecast}
      data-forecast-fates={JSON.stringify(fates)}
    >
      <title>{`${lane.name}${lane.paused ? " (paused)" : ""}: ${laneOccurrences(lane)} occurrences in view, ${ran} started${forecast > 0 ? `, ${forecast} forecast` : ""}${lane.noWorker ? ` (${lane.noWorker})` : ""}`}</title>
      <text x={x - 6} y={y} dy={4} textAnchor="end" style={{ fill: lane.paused ? "var(--muted)" : "var(--lane-text)" }} fontSize={12}>
        {label}
      </text>
    </a>
  );
}

/**
 * The planned-versus-actual chart. recharts draws the time axis, the lane labels, the now-line and the
 * future shading; the marks themselves come from TimelineMarks as a few merged paths.
 */
export const TimelineChart = memo(function TimelineChart({ model, now, visible, onZoom }: Props) {
  const router = useRouter();
  const wrap = useRef<HTMLDivElement>(null);
  const tooltip = useRef<TimelineTooltipHandle>(null);
  const width = useElementWidth(wrap);
  const { from, to, lanes } = model;
  const ticks = useMemo(() => timeTicks(from, to), [from, to]);
  const laneTicks = useMemo(() => lanes.map((_, i) => i + 0.5), [lanes]);
  const height = Math.max(lanes.length, 2) * lanePx(lanes.length) + MARGIN.top + MARGIN.bottom + 24;
  const spanMs = to - from;
  const showDate = spanMs > 20 * 3_600_000 || new Date(from).getDate() !== new Date(to).getDate();

  const onHover = useCallback((info: HoverInfo | null) => tooltip.current?.show(info), []);
  const onOpen = useCallback(
    (run: TimelineRun) =>
      void timelineRunId(run).then(
        (id) => router.push(`/runs/${id}`),
        (err: Error) => tooltip.current?.fail(`Could not open this run: ${err.message}`),
      ),
    [router],
  );
  const tick = useCallback((p: object) => <LaneTick {...p} lanes={lanes} />, [lanes]);

  return (
    <div
      className="timeline-chart"
      ref={wrap}
      data-testid="timeline-chart"
      data-lanes={lanes.length}
      data-mode={model.mode}
      data-lane-offset={model.laneOffset}
      data-forecast-from={model.forecastFrom}
      style={{ minHeight: height }}
    >
      {width > 0 && (
        <ComposedChart width={width} height={height} data={[]} margin={MARGIN}>
          <XAxis
            type="number"
            dataKey="t"
            domain={[from, to]}
            allowDataOverflow
            ticks={ticks}
            tickFormatter={showDate ? formatDayClock : formatHourMinute}
            stroke="#8b98a8"
            fontSize={12}
            orientation="top"
            height={X_AXIS_HEIGHT}
          />
          <YAxis
            type="number"
            dataKey="lane"
            domain={[0, Math.max(lanes.length, 1)]}
            reversed
            ticks={laneTicks}
            interval={0}
            tick={tick}
            tickLine={false}
            width={LABEL_WIDTH}
            stroke="#2a3544"
            allowDataOverflow
          />
          {now < to && <ReferenceArea x1={Math.max(now, from)} x2={to} fill="#4ea1ff" fillOpacity={0.05} ifOverflow="hidden" />}
          <TimelineMarks model={model} visible={visible} onHover={onHover} onOpen={onOpen} onZoom={onZoom} plotStart={PLOT_START} />
          {now >= from && now <= to && (
            <ReferenceLine
              x={now}
              stroke="#ff7b72"
              strokeWidth={1.5}
              strokeDasharray="4 3"
              zIndex={1100}
              label={{ value: "now", position: "bottom", fill: "#ff7b72", fontSize: 11 }}
            />
          )}
        </ComposedChart>
      )}
      <TimelineTooltip ref={tooltip} container={() => wrap.current} />
    </div>
  );
});
