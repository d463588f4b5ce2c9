"use client";
import { stateStyle } from "../ui/run-state-style";
import { LATE_COLOR, MARKER_COLOR } from "./build-timeline-paths";
import { FORECAST_STYLE, forecastStyle } from "./forecast-style";
import { FORECAST_BUCKET, TIMELINE_OUTCOMES } from "./timeline-model";

interface Props {
  visible: ReadonlySet<string>;
  onToggle: (bucket: string) => void;
  counts: Record<string, number>;
}

const RUNNING_MEANING = "Running now, or between attempts (retrying); a run queued to start shows as its planned marker until it starts";

const SWATCH: Record<string, "bar" | "outline" | "marker"> = { hollow: "outline", missed: "marker", skipped_overlap: "marker" };

/**
 * The legend is also the outcome filter: each entry is a toggle button with its icon, word, count and
 * swatch shape (bar, outlined bar or coloured marker), so nothing depends on telling colours apart.
 */
export function TimelineLegend({ visible, onToggle, counts }: Props) {
  return (
    <div className="legend" role="group" aria-label="Outcomes shown (click to filter)">
      <span className="legend-item static" title="Planned occurrence: where the run was supposed to start">
        <svg width="14" height="12" aria-hidden="true">
          <path d="M2 1h10l-5 8Z" fill={MARKER_COLOR} />
        </svg>
        planned
      </span>
      <span className="legend-item static" title="A start later than planned: the connector runs from the marker to the real start">
        <svg width="18" height="12" aria-hidden="true">
          <path d="M2 1V7H16" stroke={LATE_COLOR} fill="none" />
        </svg>
        late start
      </span>
      {TIMELINE_OUTCOMES.map((o) => {
        // The "running" bucket also holds runs retrying (between attempts); queued ones count as planned (timeline-model.ts outcomeBucket).
        const s = o === "running" ? { ...stateStyle(o), meaning: RUNNING_MEANING } : stateStyle(o);
        const on = visible.has(o);
        const shape = SWATCH[o] ?? "bar";
        return (
          <button
            type="button"
            key={o}
            className={`legend-item ${on ? "" : "off"}`}
            aria-pressed={on}
            onClick={() => onToggle(o)}
            title={s.meaning}
            data-testid={`legend-${o}`}
          >
            <svg width="18" height="12" aria-hidden="true">
              {shape === "bar" && <rect x="1" y="2" width="16" height="8" fill={s.color} />}
              {shape === "outline" && <rect x="1.5" y="2.5" width="15" height="7" fill="none" stroke={s.color} strokeWidth="1.5" />}
              {shape === "marker" && <path d="M4 1h10l-5 8Z" fill={s.color} />}
            </svg>
            <span aria-hidden="true">{s.icon}</span> {s.label}
            <span className="muted"> {counts[o] ?? 0}</span>
          </button>
        );
      })}
      <button
        type="button"
        className={`legend-item ${visible.has(FORECAST_BUCKET) ? "" : "off"}`}
        aria-pressed={visible.has(FORECAST_BUCKET)}
        onClick={() => onToggle(FORECAST_BUCKET)}
        title="Forecast: fires the schedule's plan computes from now on that have no run yet (hollow). Hover one to read why it will or will not run."
        data-testid={`legend-${FORECAST_BUCKET}`}
      >
        <svg width="18" height="12" aria-hidden="true">
          <path d="M4 1.5h10l-5 8Z" fill="none" stroke={forecastStyle("run").color} strokeWidth="1.3" />
        </svg>
        forecast
        <span className="muted"> {counts[FORECAST_BUCKET] ?? 0}</span>
      </button>
      <span
        className="legend-item static"
        title={Object.entries(FORECAST_STYLE)
          .filter(([fate]) => fate !== "run")
          .map(([, s]) => `${s.label}: ${s.meaning}`)
          .join("\n")}
      >
        <svg width="18" height="12" aria-hidden="true">
          <path d="M4 1.5h10l-5 8Z" fill="none" stroke={forecastStyle("excluded").color} strokeWidth="1.3" />
        </svg>
        forecast: won&apos;t run (excluded, paused, ended, DST)
      </span>
    </div>
  );
}
