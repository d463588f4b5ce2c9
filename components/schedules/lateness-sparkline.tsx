"use client";
import { memo } from "react";
import { Line, LineChart, ReferenceLine, YAxis } from "recharts";
import { LATE_AFTER_MS } from "@/core/runs/run-states";
import { formatDuration } from "../ui/time-format";

interface Props {
  points: { plannedAt: string; latenessMs: number }[];
}

/** Start lateness of the last runs as a tiny line, with the "late" threshold dashed; numbers beside it in text. */
export const LatenessSparkline = memo(function LatenessSparkline({ points }: Props) {
  if (points.length === 0) return <span className="muted">no runs yet</span>;
  const max = Math.max(...points.map((p) => p.latenessMs));
  const last = points.at(-1)!.latenessMs;
  const late = points.filter((p) => p.latenessMs > LATE_AFTER_MS).length;
  const color = late > 0 ? "#d29922" : "#3fb950";
  return (
    <div className="sparkline" title={`Start lateness of the last ${points.length} runs: latest ${formatDuration(last)}, worst ${formatDuration(max)}; ${late} late (> ${LATE_AFTER_MS / 1000} s)`}>
      <LineChart width={110} height={28} data={points} margin={{ top: 3, right: 2, bottom: 3, left: 2 }}>
        <YAxis hide domain={[0, Math.max(max, LATE_AFTER_MS * 2)]} />
        <ReferenceLine y={LATE_AFTER_MS} stroke="#8b98a8" strokeDasharray="2 2" />
        <Line type="monotone" dataKey="latenessMs" stroke={color} strokeWidth={1.5} dot={false} isAnimationActive={false} />
      </LineChart>
      <span className={`small ${late > 0 ? "warn-text" : "muted"}`}>
        {late > 0 ? "⚠ " : ""}max {formatDuration(max)}
      </span>
    </div>
  );
});
