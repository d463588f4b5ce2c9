"use client";
import { memo } from "react";
import { Line, LineChart, ReferenceLine, YAxis } from "recharts";
import { isLate, lateThresholdMs } from "@/core/runs/lateness";
import { formatDuration } from "../ui/time-format";

interface Props {
  /** Start lateness in ms of the most recent runs, oldest first. */
  values: number[];
  /** The schedule's start jitter window: lateness inside it is on purpose, not late. */
  jitterMs?: number;
}

/** Start lateness of the last runs as a tiny line with the "late" threshold dashed; the worst value in text beside it. */
export const LatenessSparkline = memo(function LatenessSparkline({ values, jitterMs = 0 }: Props) {
  if (values.length === 0) return <span className="muted">no runs yet</span>;
  const threshold = lateThresholdMs(jitterMs);
  const max = Math.max(...values);
  const last = values.at(-1)!;
  const late = values.filter((v) => isLate(v, jitterMs)).length;
  const color = late > 0 ? "#d29922" : "#3fb950";
  const data = values.map((v, i) => ({ i, v }));
  return (
    <div
      className="sparkline"
      data-testid="lateness-sparkline"
      title={`Start lateness of the last ${values.length} runs: latest ${formatDuration(last)}, worst ${formatDuration(max)}; ${late} late (more than ${formatDuration(threshold)})`}
    >
      <LineChart width={110} height={28} data={data} margin={{ top: 3, right: 2, bottom: 3, left: 2 }}>
        <YAxis hide domain={[0, Math.max(max, threshold * 2)]} />
        <ReferenceLine y={threshold} stroke="#8b98a8" strokeDasharray="2 2" />
        <Line type="monotone" dataKey="v" stroke={color} strokeWidth={1.5} dot={false} isAnimationActive={false} />
      </LineChart>
      <span className={`small ${late > 0 ? "warn-text" : "muted"}`}>
        {late > 0 ? `⚠ ${late} late, ` : ""}max {formatDuration(max)}
      </span>
    </div>
  );
});
