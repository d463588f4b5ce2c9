"use client";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import dynamic from "next/dynamic";
import { useQuery } from "@tanstack/react-query";
import { formatInZone, viewerZone } from "../ui/time-format";
import { useElementWidth } from "../ui/use-element-width";
import { TimelineLegend } from "./timeline-legend";
import { countByOutcome, FORECAST_BUCKET, laneOccurrences, TIMELINE_OUTCOMES, withProposed } from "./timeline-model";
import { timelineQuery } from "./timeline-queries";
import { usePickedTeam } from "../ui/use-picked-team";
import {
  DEFAULT_WINDOW,
  fittedDefaultWindow,
  panWindow,
  presetWindow,
  WINDOW_PRESETS,
  windowKey,
  zoomWindow,
  type TimelineLaneView,
  type TimelineWindow,
} from "./timeline-window";

// The chart (recharts) loads as its own chunk after the page hydrates, so the window's data is already being
// fetched while it downloads and compiles instead of after.
const TimelineChart = dynamic(() => import("./timeline-chart").then((m) => m.TimelineChart), {
  ssr: false,
  loading: () => <p className="muted">Drawing the timeline…</p>,
});

const ALL_BUCKETS = [...TIMELINE_OUTCOMES, "planned", "paused", FORECAST_BUCKET];

/** Lanes per page: the chart draws (and the server reads) only these. */
export const LANES_PER_PAGE = 50;
/** The chart's label column and margins (timeline-chart.tsx): the plot is the rest of the width. */
const NON_PLOT_PX = 190 + 8 + 24;
type LaneFilters = Omit<TimelineLaneView, "width" | "laneOffset" | "laneLimit">;

/**
 * Planned versus actual (and the plan ahead) for every schedule over a window: controls, legend-as-filter and the
 * chart. `initialWindow` is a preset id (timeline-window.ts), e.g. "next-24h"; `oneSchedule` is the schedule page's
 * embedded form (no lane filters, the window not written to the address).
 */
export function TimelineView({
  initialScheduleId,
  initialQuery,
  initialWindow,
  oneSchedule = false,
  fixedWindow,
  proposed,
}: {
  initialScheduleId?: string;
  initialQuery?: string;
  initialWindow?: string;
  oneSchedule?: boolean;
  /** A window to open on instead of a preset (a dry run's range). */
  fixedWindow?: { from: number; to: number };
  /** A dry run's proposed fires, drawn on their schedule's lane as "proposed" forecast marks. */
  proposed?: { scheduleId: string; at: number[] };
}) {
  // The window the operator chose; until then the default, fitted to the history once the first answer tells its
  // start (null until then: that first answer is for the default window).
  const [chosen, setChosen] = useState<TimelineWindow | null>(
    () => (fixedWindow ? { kind: "fixed", ...fixedWindow } : null) ?? presetWindow(initialWindow) ?? null,
  );
  // A preset is written to the address (?window=next-24h) so the view can be shared or reloaded as it is.
  const setWin = useCallback(
    (next: TimelineWindow | null | ((w: TimelineWindow | null) => TimelineWindow | null)) =>
      setChosen((w) => {
        const value = typeof next === "function" ? next(w) : next;
        if (!oneSchedule && typeof window !== "undefined") {
          const url = new URL(window.location.href);
          const id = value ? WINDOW_PRESETS.find((p) => windowKey(p.window) === windowKey(value))?.id : undefined;
          if (id) url.searchParams.set("window", id);
          else url.searchParams.delete("window");
          window.history.replaceState(window.history.state, "", url);
        }
        return value;
      }),
    [oneSchedule],
  );
  const [fitted, setFitted] = useState<TimelineWindow | null>(null);
  const home = fitted ?? DEFAULT_WINDOW;
  const win = chosen ?? home;
  const [filters, setFilters] = useState<LaneFilters>({ scheduleId: initialScheduleId, q: initialQuery || undefined });
  const [laneOffset, setLaneOffset] = useState(0);
  const [nameText, setNameText] = useState(initialQuery ?? "");
  const [tagText, setTagText] = useState("");
  const [visible, setVisible] = useState<ReadonlySet<string>>(() => new Set(ALL_BUCKETS));
  const wrap = useRef<HTMLDivElement>(null);
  const measured = useElementWidth(wrap);
  // In 50 px steps: a resize by a few pixels asks for the same answer.
  const width = measured > 0 ? Math.max(200, Math.floor((measured - NON_PLOT_PX) / 50) * 50) : 0;
  const team = usePickedTeam();
  const lanes: TimelineLaneView = { ...filters, team, width, laneOffset, laneLimit: LANES_PER_PAGE };
  const q = useQuery({
    ...timelineQuery(win, lanes),
    enabled: width > 0,
    // The last answer stays drawn while the operator's own zoom or pan loads (the summary names its range). A window
    // the page picked itself (the fit below, "Back to now") starts empty instead: its label must never sit over
    // another window's data.
    placeholderData: (prev, prevQuery) => (chosen === null && prevQuery?.queryKey[1] !== windowKey(win) ? undefined : prev),
  });
  // Once per visit: a young history (a new install) is shown in the narrowest preset that holds all of it. Decided
  // during render, so the default window's answer is never painted under the fitted window's label.
  if (fitted === null && chosen === null && q.data && !q.isPlaceholderData) setFitted(fittedDefaultWindow(q.data.historyFrom, q.data.now));
  const setFilter = (change: Partial<LaneFilters>) => {
    setFilters((f) => ({ ...f, ...change }));
    setLaneOffset(0);
  };
  // Typing filters after a short pause, not on every key.
  useEffect(() => {
    const name = nameText.trim() || undefined;
    const tag = tagText.trim() || undefined;
    if (name === filters.q && tag === filters.tag) return;
    const t = setTimeout(() => {
      setFilters((f) => ({ ...f, q: name, tag }));
      setLaneOffset(0);
    }, 250);
    return () => clearTimeout(t);
  }, [nameText, tagText, filters.q, filters.tag]);
  const fetched = q.data?.model;
  const model = useMemo(
    () => (fetched && proposed ? withProposed(fetched, proposed.scheduleId, proposed.at) : fetched),
    [fetched, proposed],
  );
  const counts = useMemo(() => countByOutcome(model), [model]);
  const onZoom = useCallback(
    (from: number, to: number) => setWin({ kind: "fixed", from: Math.round(from), to: Math.round(Math.max(to, from + 60_000)) }),
    [setWin],
  );
  const presetKey = WINDOW_PRESETS.find((p) => windowKey(p.window) === windowKey(win)) ? windowKey(win) : "custom";
  const toggle = (bucket: string) =>
    setVisible((v) => {
      const next = new Set(v);
      if (next.has(bucket)) next.delete(bucket);
      else next.add(bucket);
      return next;
    });
  const total = model?.lanes.reduce((n, l) => n + laneOccurrences(l), 0) ?? 0;
  const forecastTotal = counts[FORECAST_BUCKET] ?? 0;
  const forecastCut = model?.lanes.filter((l) => l.forecastCutAt !== null).length ?? 0;
  const forecastSummarised = model?.lanes.some((l) => l.forecastBuckets.length > 0) ?? false;
  const laneTotal = model?.laneTotal ?? 0;

  return (
    <div data-testid="timeline-view">
      <div className="row toolbar" role="toolbar" aria-label="Timeline window">
        <div className="field inline">
          <label htmlFor="tl-window">Window</label>
          <select
            id="tl-window"
            value={presetKey}
            onChange={(e) => setWin(WINDOW_PRESETS.find((p) => windowKey(p.window) === e.target.value)?.window ?? null)}
          >
            {WINDOW_PRESETS.map((p) => (
              <option key={p.label} value={windowKey(p.window)}>
                {p.label}
              </option>
            ))}
            {presetKey === "custom" && <option value="custom">Custom (zoomed)</option>}
          </select>
        </div>
        <button type="button" onClick={() => setWin((w) => panWindow(w ?? home, Date.now(), -0.5))} aria-label="Earlier">
          ← Earlier
        </button>
        <button type="button" onClick={() => setWin((w) => zoomWindow(w ?? home, Date.now(), 0.5))} aria-label="Zoom in">
          + Zoom in
        </button>
        <button type="button" onClick={() => setWin((w) => zoomWindow(w ?? home, Date.now(), 2))} aria-label="Zoom out">
          − Zoom out
        </button>
        <button type="button" onClick={() => setWin((w) => panWindow(w ?? home, Date.now(), 0.5))} aria-label="Later">
          Later →
        </button>
        <button type="button" onClick={() => setWin(null)} disabled={windowKey(win) === windowKey(home)}>
          ⟲ Back to now
        </button>
      </div>
      {!oneSchedule && (
        <div className="row toolbar" role="search" aria-label="Timeline lanes">
          <div className="field inline">
            <label htmlFor="tl-name">Schedule</label>
            <input
              id="tl-name"
              type="search"
              placeholder="name or handler"
              value={nameText}
              onChange={(e) => setNameText(e.target.value)}
            />
          </div>
          <div className="field inline">
            <label htmlFor="tl-tag">Tag</label>
            <input id="tl-tag" type="search" placeholder="e.g. payments" value={tagText} onChange={(e) => setTagText(e.target.value)} />
          </div>
          <div className="field inline">
            <label htmlFor="tl-trouble">Showing</label>
            <select
              id="tl-trouble"
              value={filters.trouble ?? ""}
              onChange={(e) => setFilter({ trouble: (e.target.value || undefined) as LaneFilters["trouble"] })}
            >
              <option value="">All schedules</option>
              <option value="any">With trouble in the window</option>
              <option value="failed">With failed runs</option>
              <option value="missed">With missed runs</option>
              <option value="late">With late starts</option>
              <option value="hollow">With hollow runs</option>
            </select>
          </div>
          <div className="field inline">
            <label htmlFor="tl-sort">Order</label>
            <select
              id="tl-sort"
              value={filters.sort ?? "name"}
              onChange={(e) => setFilter({ sort: e.target.value === "trouble" ? "trouble" : undefined })}
              data-testid="timeline-sort"
            >
              <option value="name">By name</option>
              <option value="trouble">Most trouble first</option>
            </select>
          </div>
          {filters.scheduleId && (
            <button type="button" onClick={() => setFilter({ scheduleId: undefined })}>
              × One schedule only
            </button>
          )}
          {laneTotal > LANES_PER_PAGE && (
            <span className="row" data-testid="timeline-lane-pager">
              <button type="button" disabled={laneOffset === 0} onClick={() => setLaneOffset((o) => Math.max(0, o - LANES_PER_PAGE))}>
                ↑ Previous lanes
              </button>
              <span className="small" data-testid="timeline-lane-range">
                lanes {laneOffset + 1}–{Math.min(laneOffset + LANES_PER_PAGE, laneTotal)} of {laneTotal}
              </span>
              <button
                type="button"
                disabled={laneOffset + LANES_PER_PAGE >= laneTotal}
                onClick={() => setLaneOffset((o) => o + LANES_PER_PAGE)}
              >
                ↓ Next lanes
              </button>
            </span>
          )}
        </div>
      )}
      <TimelineLegend visible={visible} onToggle={toggle} counts={counts} />
      {model && (
        <p className="muted small" data-testid="timeline-summary" data-from={model.from} data-to={model.to}>
          {formatInZone(model.from)} → {formatInZone(model.to)} (your zone, {viewerZone()}) · {model.lanes.length} schedule(s) · {total}{" "}
          occurrence(s)
          {model.forecastFrom !== undefined && (
            <span data-testid="timeline-forecast-summary" data-forecast={forecastTotal} data-cut={forecastCut}>
              {" "}
              · {forecastTotal} forecast fire(s) from the plan{forecastSummarised ? " (summarised)" : ""}
              {forecastCut > 0 && ` · forecast cut at the cap for ${forecastCut} schedule(s) (a dashed line marks where)`}
            </span>
          )}{" "}
          ·{" "}
          {model.mode === "summary" ? (
            <span data-testid="timeline-summarised">
              summarised in {Math.round(model.bucketMs / 1000)} s buckets (each bar: its worst outcome; click one or drag to zoom into
              single runs)
            </span>
          ) : (
            "drag across the chart to zoom; hover a mark for details, click to open the run."
          )}
        </p>
      )}
      {q.error && <p className="error">Could not load the timeline: {q.error.message}</p>}
      {(q.isLoading || width === 0) && <p className="muted">Loading timeline…</p>}
      {model && model.lanes.length === 0 && <p className="muted">No schedules have occurrences in this window.</p>}
      <div ref={wrap}>
        {model && model.lanes.length > 0 && <TimelineChart model={model} now={q.data!.now} visible={visible} onZoom={onZoom} />}
      </div>
    </div>
  );
}
