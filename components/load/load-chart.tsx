"use client";
import { Area, CartesianGrid, ComposedChart, Line, ReferenceDot, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { formatDayClock, formatDuration, formatHourMinute, formatInZone } from "../ui/time-format";
import type { LoadForecastView } from "./load-queries";

type Curve = LoadForecastView["curve"];
type Burst = LoadForecastView["bursts"][number];

interface Row {
  t: number;
  due: number;
  after?: number;
}

function PointTooltip({ active, payload, pointMinutes }: { active?: boolean; payload?: { payload: Row }[]; pointMinutes: number }) {
  const p = payload?.[0]?.payload;
  if (!active || !p) return null;
  return (
    <div className="card" style={{ padding: 8, margin: 0 }}>
      <div>{formatInZone(p.t)}</div>
      <div>
        {p.due} due {pointMinutes === 1 ? "this minute" : "in the busiest minute of these 10"}
      </div>
      {p.after !== undefined && <div>after the spread: {p.after}</div>}
    </div>
  );
}

/** Due runs per minute (the busiest minute of each point over 7 days), bursts marked; optionally a second "after" curve. */
export function LoadChart({ curve, bursts, after, height = 280 }: { curve: Curve; bursts: Burst[]; after?: Curve; height?: number }) {
  const rows: Row[] = curve.points.map((p, i) => ({
    t: Date.parse(p.at),
    due: p.peak,
    ...(after ? { after: after.points[i]?.peak ?? 0 } : {}),
  }));
  const spanMs = rows.length > 1 ? rows[rows.length - 1]!.t - rows[0]!.t : 0;
  const tick = spanMs > 2 * 86_400_000 ? formatDayClock : formatHourMinute;
  const top = Math.max(1, ...rows.map((r) => Math.max(r.due, r.after ?? 0)));
  // The worst bursts only: a marker per bunched minute would hide the curve.
  const marked = bursts.slice(0, 12);
  const snap = (iso: string) => {
    const t = Date.parse(iso);
    const step = curve.pointMinutes * 60_000;
    return rows.length ? rows[0]!.t + Math.floor((t - rows[0]!.t) / step) * step : t;
  };
  return (
    <div data-testid="load-chart" style={{ width: "100%", height }}>
      <ResponsiveContainer>
        <ComposedChart data={rows} margin={{ top: 24, right: 16, bottom: 4, left: 0 }}>
          <CartesianGrid strokeDasharray="3 3" stroke="var(--border, #333)" />
          <XAxis dataKey="t" type="number" scale="time" domain={["dataMin", "dataMax"]} tickFormatter={tick} minTickGap={40} />
          <YAxis allowDecimals={false} domain={[0, Math.ceil(top * 1.15)]} width={44} />
          <Tooltip content={<PointTooltip pointMinutes={curve.pointMinutes} />} />
          <Area
            dataKey="due"
            name={after ? "before" : "due per minute"}
            type="stepAfter"
            stroke="#58a6ff"
            fill="#58a6ff"
            fillOpacity={after ? 0.15 : 0.35}
            isAnimationActive={false}
          />
          {after && (
            <Line dataKey="after" name="after" type="stepAfter" stroke="#3fb950" dot={false} strokeWidth={2} isAnimationActive={false} />
          )}
          {marked.map((b) => (
            <ReferenceDot
              key={`${b.group}-${b.at}`}
              x={snap(b.at)}
              y={b.due}
              r={5}
              fill="#f85149"
              stroke="#f85149"
              ifOverflow="extendDomain"
              label={{
                value: b.lastStartLatenessMs === null ? `${b.group}: ${b.due}/${b.limit}` : `+${formatDuration(b.lastStartLatenessMs)}`,
                position: "top",
                fill: "#f85149",
                fontSize: 11,
              }}
            />
          ))}
        </ComposedChart>
      </ResponsiveContainer>
    </div>
  );
}
