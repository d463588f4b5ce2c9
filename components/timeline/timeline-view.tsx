"use client";
import { useCallback, useMemo, useState } from "react";
import dynamic from "next/dynamic";
import { useQuery } from "@tanstack/react-query";
import { schedulesQuery } from "../schedules/schedules-queries";
import { formatInZone, viewerZone } from "../ui/time-format";
import { TimelineLegend } from "./timeline-legend";
import { outcomeBucket, TIMELINE_OUTCOMES, type TimelineModel } from "./timeline-model";
import { timelineQuery } from "./timeline-queries";
import { DEFAULT_WINDOW, panWindow, WINDOW_PRESETS, windowKey, zoomWindow, type TimelineWindow } from "./timeline-window";

// The chart (recharts) loads as its own chunk after the page hydrates, so the window's data is already being
// fetched while it downloads and compiles instead of after.
const TimelineChart = dynamic(() => import("./timeline-chart").then((m) => m.TimelineChart), {
  ssr: false,
  loading: () => <p className="muted">Drawing the timeline…</p>,
});

const ALL_BUCKETS = [...TIMELINE_OUTCOMES, "planned", "paused"];

function countByOutcome(model: TimelineModel | undefined): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const lane of model?.lanes ?? [])
    for (const r of lane.runs) counts[outcomeBucket(r.state)] = (counts[outcomeBucket(r.state)] ?? 0) + 1;
  return counts;
}

/** Planned versus actual for every schedule over a window: controls, legend-as-filter and the chart. */
export function TimelineView({ initialScheduleId }: { initialScheduleId?: string }) {
  const [win, setWin] = useState<TimelineWindow>(DEFAULT_WINDOW);
  const [scheduleId, setScheduleId] = useState<string | undefined>(initialScheduleId);
  const [visible, setVisible] = useState<ReadonlySet<string>>(() => new Set(ALL_BUCKETS));
  const schedules = useQuery({ ...schedulesQuery(), refetchInterval: 10_000 });
  const q = useQuery({ ...timelineQuery(win, scheduleId), placeholderData: (prev) => prev });
  const model = q.data?.model;
  const counts = useMemo(() => countByOutcome(model), [model]);
  const onZoom = useCallback((from: number, to: number) => setWin({ kind: "fixed", from: Math.round(from), to: Math.round(to) }), []);
  const presetKey = WINDOW_PRESETS.find((p) => windowKey(p.window) === windowKey(win)) ? windowKey(win) : "custom";
  const toggle = (bucket: string) =>
    setVisible((v) => {
      const next = new Set(v);
      if (next.has(bucket)) next.delete(bucket);
      else next.add(bucket);
      return next;
    });
  const total = model?.lanes.reduce((n, l) => n + l.runs.length, 0) ?? 0;

  return (
    <div data-testid="timeline-view">
      <div className="row toolbar" role="toolbar" aria-label="Timeline window">
        <div className="field inline">
          <label htmlFor="tl-window">Window</label>
          <select
            id="tl-window"
            value={presetKey}
            onChange={(e) => setWin(WINDOW_PRESETS.find((p) => windowKey(p.window) === e.target.value)?.window ?? DEFAULT_WINDOW)}
          >
            {WINDOW_PRESETS.map((p) => (
              <option key={p.label} value={windowKey(p.window)}>
                {p.label}
              </option>
            ))}
            {presetKey === "custom" && <option value="custom">Custom (zoomed)</option>}
          </select>
        </div>
        <button type="button" onClick={() => setWin((w) => panWindow(w, Date.now(), -0.5))} aria-label="Earlier">
          ← Earlier
        </button>
        <button type="button" onClick={() => setWin((w) => zoomWindow(w, Date.now(), 0.5))} aria-label="Zoom in">
          + Zoom in
        </button>
        <button type="button" onClick={() => setWin((w) => zoomWindow(w, Date.now(), 2))} aria-label="Zoom out">
          − Zoom out
        </button>
        <button type="button" onClick={() => setWin((w) => panWindow(w, Date.now(), 0.5))} aria-label="Later">
          Later →
        </button>
        <button type="button" onClick={() => setWin(DEFAULT_WINDOW)} disabled={windowKey(win) === windowKey(DEFAULT_WINDOW)}>
          ⟲ Back to now
        </button>
        <div className="field inline">
          <label htmlFor="tl-schedule">Schedule</label>
          <select id="tl-schedule" value={scheduleId ?? ""} onChange={(e) => setScheduleId(e.target.value || undefined)}>
            <option value="">All schedules</option>
            {(schedules.data?.schedules ?? []).map((s) => (
              <option key={s.id} value={s.id}>
                {s.name}
              </option>
            ))}
          </select>
        </div>
      </div>
      <TimelineLegend visible={visible} onToggle={toggle} counts={counts} />
      {model && (
        <p className="muted small" data-testid="timeline-summary">
          {formatInZone(model.from)} → {formatInZone(model.to)} (your zone, {viewerZone()}) · {model.lanes.length} schedule(s) · {total}{" "}
          occurrence(s) · drag across the chart to zoom; hover a mark for details, click to open the run.
        </p>
      )}
      {q.data?.truncated && (
        <p className="banner warn">⚠ More than 60,000 runs in this window: only the first are drawn. Zoom in or pick one schedule.</p>
      )}
      {q.error && <p className="error">Could not load the timeline: {q.error.message}</p>}
      {q.isLoading && <p className="muted">Loading timeline…</p>}
      {model && model.lanes.length === 0 && <p className="muted">No schedules have occurrences in this window.</p>}
      {model && model.lanes.length > 0 && <TimelineChart model={model} now={q.data!.now} visible={visible} onZoom={onZoom} />}
    </div>
  );
}
