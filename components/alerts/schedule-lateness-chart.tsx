"use client";
import { useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { CartesianGrid, ReferenceLine, ResponsiveContainer, Scatter, ScatterChart, Tooltip, XAxis, YAxis } from "recharts";
import { formatClock, formatDayClock, formatDuration, formatInZone } from "../ui/time-format";
import { scheduleLatenessQuery, type LatenessView } from "./alerts-queries";

const WINDOWS = [1, 6, 24, 168] as const;

interface Point {
  t: number;
  lateness: number;
  state: string;
  started: boolean;
  runId: string;
}

function PointTooltip({ active, payload }: { active?: boolean; payload?: { payload: Point }[] }) {
  const p = payload?.[0]?.payload;
  if (!active || !p) return null;
  return (
    <div className="card" style={{ padding: 8, margin: 0 }}>
      <div>Planned {formatInZone(p.t)}</div>
      <div>
        {p.started ? "Started" : "Not started,"} {formatDuration(p.lateness)} late
      </div>
      <div className="muted small">{p.state}</div>
    </div>
  );
}

function objectiveLines(s: LatenessView["schedule"]) {
  return (
    <>
      {s.latenessP95SloMs !== null && (
        <ReferenceLine
          y={s.latenessP95SloMs}
          stroke="#d29922"
          strokeDasharray="6 3"
          label={{ value: `p95 objective ${formatDuration(s.latenessP95SloMs)}`, fill: "#d29922", fontSize: 11, position: "insideTopLeft" }}
        />
      )}
      {s.latenessMaxMs !== null && (
        <ReferenceLine
          y={s.latenessMaxMs}
          stroke="#f85149"
          strokeDasharray="2 3"
          label={{ value: `max ${formatDuration(s.latenessMaxMs)}`, fill: "#f85149", fontSize: 11, position: "insideTopRight" }}
        />
      )}
    </>
  );
}

/** Start lateness (started − planned) of each run over time, with the schedule's objectives as lines. */
export function ScheduleLatenessChart({ scheduleId }: { scheduleId: string }) {
  const [hours, setHours] = useState<number>(6);
  const { data, error, isLoading } = useQuery(scheduleLatenessQuery(scheduleId, hours));
  const points: Point[] = (data?.points ?? []).map((p) => ({
    t: Date.parse(p.plannedAt),
    lateness: p.latenessMs,
    state: p.state,
    started: p.startedAt !== null,
    runId: p.runId,
  }));
  const started = points.filter((p) => p.started);
  const waiting = points.filter((p) => !p.started);
  const s = data?.schedule;
  const limit = s?.latenessMaxMs ?? s?.latenessP95SloMs ?? null;
  const over = limit === null ? 0 : started.filter((p) => p.lateness > limit).length;
  const yMax = Math.max(1, ...points.map((p) => p.lateness), (s?.latenessMaxMs ?? 0) * 1.2, (s?.latenessP95SloMs ?? 0) * 1.2);
  const windowFrom = data ? Date.parse(data.from) : 0;
  const to = data ? Date.parse(data.to) : 0;
  // A schedule younger than the window is drawn from its creation (nothing of it is older), not squeezed at the right
  // edge; a gap after that (a pause, missed runs, which have no point) stays visible.
  const created = s ? Date.parse(s.createdAt) : windowFrom;
  const from = Math.max(windowFrom, created - Math.max(30_000, (to - created) * 0.05));
  return (
    <section className="card" aria-labelledby="lateness-title" data-testid="schedule-lateness">
      <div className="row">
        <h2 id="lateness-title" style={{ margin: 0 }}>
          Start lateness
        </h2>
        <span className="spacer" />
        <label htmlFor="lateness-window" style={{ margin: 0 }}>
          Window
        </label>
        <select id="lateness-window" value={hours} onChange={(e) => setHours(Number(e.target.value))} style={{ width: "auto" }}>
          {WINDOWS.map((h) => (
            <option key={h} value={h}>
              {h < 24 ? `${h} h` : `${h / 24} d`}
            </option>
          ))}
        </select>
      </div>
      {isLoading && <p className="muted">Loading lateness…</p>}
      {error && <p className="error">Could not load lateness: {error.message}</p>}
      {data && (
        <>
          <p className="small muted" data-testid="lateness-summary">
            {started.length} run{started.length === 1 ? "" : "s"} started · p95 {data.p95Ms === null ? "—" : formatDuration(data.p95Ms)}
            {s?.latenessP95SloMs !== null && s ? ` (objective ${formatDuration(s.latenessP95SloMs)})` : ""}
            {limit !== null ? ` · ${over} over ${formatDuration(limit)}` : " · no lateness objective set for this schedule"}
            {waiting.length > 0 ? ` · ${waiting.length} due and not started yet` : ""}
            {from > windowFrom ? ` · drawn from the schedule's creation (${formatClock(created)})` : ""}
          </p>
          {points.length === 0 ? (
            <p className="muted">No runs in this window.</p>
          ) : (
            <div style={{ width: "100%", height: 240 }}>
              <ResponsiveContainer>
                <ScatterChart margin={{ top: 12, right: 16, bottom: 4, left: 8 }}>
                  <CartesianGrid stroke="#2a3544" strokeDasharray="3 3" />
                  <XAxis
                    type="number"
                    dataKey="t"
                    domain={[from, to]}
                    tickFormatter={(v: number) => (hours > 24 ? formatDayClock(v) : formatClock(v))}
                    stroke="#8b98a8"
                    fontSize={11}
                    name="planned"
                  />
                  <YAxis
                    type="number"
                    dataKey="lateness"
                    domain={[0, yMax]}
                    tickFormatter={(v: number) => formatDuration(v)}
                    stroke="#8b98a8"
                    fontSize={11}
                    width={70}
                    name="lateness"
                  />
                  <Tooltip content={<PointTooltip />} />
                  {s && objectiveLines(s)}
                  <Scatter name="started" data={started} fill="#4ea1ff" isAnimationActive={false} />
                  <Scatter name="not started" data={waiting} fill="#f85149" shape="cross" isAnimationActive={false} />
                </ScatterChart>
              </ResponsiveContainer>
            </div>
          )}
        </>
      )}
    </section>
  );
}
