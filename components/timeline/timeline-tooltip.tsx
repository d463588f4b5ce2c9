"use client";
import { useImperativeHandle, useState, type Ref } from "react";
import { isLate } from "@/core/runs/lateness";
import { RunStatePill } from "../ui/run-state-pill";
import { formatDuration, formatInZone } from "../ui/time-format";
import type { HoverInfo } from "./timeline-marks";
import type { TimelineBucket } from "./timeline-model";
import { forecastStyle } from "./forecast-style";

export interface TimelineTooltipHandle {
  show: (info: HoverInfo | null) => void;
  /** Says on the card that opening its run failed (until the card shows another run). */
  fail: (message: string) => void;
}

/**
 * The hover card. It owns its own state (set through a handle) so moving the pointer re-renders this card
 * only, never the chart with its thousands of marks.
 */
export function TimelineTooltip({ ref, container }: { ref: Ref<TimelineTooltipHandle>; container: () => HTMLElement | null }) {
  const [info, setInfo] = useState<HoverInfo | null>(null);
  const [error, setError] = useState<string | null>(null);
  useImperativeHandle(
    ref,
    () => ({
      show: (next) => {
        setInfo(next);
        setError(null);
      },
      fail: setError,
    }),
    [],
  );
  const box = container()?.getBoundingClientRect();
  if (!info || !box) return null;
  const left = Math.min(info.clientX - box.left + 14, box.width - 300);
  const top = info.clientY - box.top + 14;
  if (info.bucket) return <BucketCard info={info} left={left} top={top} />;
  if (info.forecast) return <ForecastCard info={info} left={left} top={top} />;
  if (info.forecastBucket) return <ForecastBucketCard info={info} left={left} top={top} />;
  const { run, lane } = info;
  const lateness = run.latenessMs ?? (run.startedAt !== null ? run.startedAt - run.plannedAt : null);
  const duration = run.startedAt !== null && run.finishedAt !== null ? run.finishedAt - run.startedAt : null;
  return (
    <div className="timeline-tooltip" style={{ left, top }} role="tooltip" data-testid="timeline-tooltip">
      <div className="row" style={{ gap: 8 }}>
        <strong>{lane.name}</strong>
        <RunStatePill state={run.state} />
        {run.kind !== "scheduled" && <span className="pill muted">{run.kind}</span>}
      </div>
      <dl className="kv">
        <dt>Planned</dt>
        <dd>{formatInZone(run.plannedAt)}</dd>
        <dt>Started</dt>
        <dd>{run.startedAt === null ? "not started" : formatInZone(run.startedAt)}</dd>
        <dt>Finished</dt>
        <dd>{run.finishedAt === null ? (run.startedAt === null ? "—" : "still running") : formatInZone(run.finishedAt)}</dd>
        <dt>Lateness</dt>
        <dd>
          {lateness === null ? "—" : formatDuration(lateness)}
          {isLate(lateness, lane.startJitterMs) && <span className="late-flag"> ⚠ late</span>}
        </dd>
        <dt>Duration</dt>
        <dd>{formatDuration(duration)}</dd>
        {run.attempts.length > 1 && (
          <>
            <dt>Attempts</dt>
            <dd>{run.attempts.length}</dd>
          </>
        )}
      </dl>
      {error ? (
        <p className="error" role="alert">
          {error}
        </p>
      ) : (
        <div className="muted" style={{ fontSize: 12 }}>
          Click (or press Enter) to open the run
        </div>
      )}
    </div>
  );
}

/** A summarised bucket: what its runs did, and that a click zooms in to them. */
function BucketCard({ info, left, top }: { info: HoverInfo & { bucket: TimelineBucket }; left: number; top: number }) {
  const { bucket, lane } = info;
  const states = Object.entries(bucket.counts).sort((a, b) => b[1] - a[1]);
  return (
    <div className="timeline-tooltip" style={{ left, top }} role="tooltip" data-testid="timeline-tooltip" data-bucket="true">
      <div className="row" style={{ gap: 8 }}>
        <strong>{lane.name}</strong>
        <RunStatePill state={bucket.worst} />
      </div>
      <dl className="kv">
        <dt>Planned</dt>
        <dd>
          {formatInZone(bucket.start)} – {formatInZone(bucket.end)}
        </dd>
        <dt>Occurrences</dt>
        <dd data-testid="bucket-counts">
          {bucket.total}: {states.map(([state, n]) => `${n} ${state.replace("_", " ")}`).join(", ")}
        </dd>
        <dt>Late starts</dt>
        <dd>
          {bucket.late}
          {bucket.late > 0 && bucket.maxLatenessMs !== null && (
            <span className="late-flag"> ⚠ up to {formatDuration(bucket.maxLatenessMs)}</span>
          )}
        </dd>
      </dl>
      <div className="muted" style={{ fontSize: 12 }}>
        Click to zoom in to these runs
      </div>
    </div>
  );
}

function FatePill({ fate }: { fate: string }) {
  const s = forecastStyle(fate);
  return (
    <span className="pill" style={{ border: `1px dashed ${s.color}`, color: s.color, background: "transparent" }} title={s.meaning}>
      forecast · {s.label}
    </span>
  );
}

/** One forecast fire: when, what becomes of it and why (the plan's own sentence), its jitter and its worker. */
function ForecastCard({
  info,
  left,
  top,
}: {
  info: HoverInfo & { forecast: NonNullable<HoverInfo["forecast"]> };
  left: number;
  top: number;
}) {
  const { forecast: f, lane } = info;
  const runs = f.fate === "run";
  return (
    <div className="timeline-tooltip" style={{ left, top }} role="tooltip" data-testid="timeline-tooltip" data-forecast={f.fate}>
      <div className="row" style={{ gap: 8 }}>
        <strong>{lane.name}</strong>
        <FatePill fate={f.fate} />
      </div>
      <dl className="kv">
        <dt>{runs ? "Fires" : "Would fire"}</dt>
        <dd>{formatInZone(f.plannedAt)}</dd>
        {f.nominalAt !== f.plannedAt && (
          <>
            <dt>Trigger time</dt>
            <dd>{formatInZone(f.nominalAt)}</dd>
          </>
        )}
        {runs && lane.startJitterMs > 0 && (
          <>
            <dt>Start jitter</dt>
            <dd>
              due between {formatInZone(f.plannedAt)} and {formatInZone(f.plannedAt + lane.startJitterMs)}
            </dd>
          </>
        )}
        {f.reason && (
          <>
            <dt>Why</dt>
            <dd data-testid="forecast-reason">{f.reason}</dd>
          </>
        )}
      </dl>
      {runs && lane.noWorker && (
        <p className="late-flag" data-testid="forecast-no-worker">
          ⚠ Now {lane.noWorker}: this run would wait queued until one starts.
        </p>
      )}
      <div className="muted" style={{ fontSize: 12 }}>
        Forecast from the schedule&apos;s plan: no run exists yet.
      </div>
    </div>
  );
}

/** A summarised stretch of a lane's forecast: its fires by fate, and that a click zooms in to them. */
function ForecastBucketCard({
  info,
  left,
  top,
}: {
  info: HoverInfo & { forecastBucket: NonNullable<HoverInfo["forecastBucket"]> };
  left: number;
  top: number;
}) {
  const { forecastBucket: b, lane } = info;
  const fates = Object.entries(b.counts).sort((x, y) => y[1] - x[1]);
  return (
    <div className="timeline-tooltip" style={{ left, top }} role="tooltip" data-testid="timeline-tooltip" data-forecast="bucket">
      <div className="row" style={{ gap: 8 }}>
        <strong>{lane.name}</strong>
        <FatePill fate={fates.find(([f]) => f !== "run")?.[0] ?? "run"} />
      </div>
      <dl className="kv">
        <dt>Fires</dt>
        <dd>
          {formatInZone(b.start)} – {formatInZone(b.end)}
        </dd>
        <dt>Forecast</dt>
        <dd data-testid="bucket-counts">
          {b.total}: {fates.map(([fate, n]) => `${n} ${forecastStyle(fate).label}`).join(", ")}
        </dd>
      </dl>
      {lane.noWorker && <p className="late-flag">⚠ Now {lane.noWorker}.</p>}
      <div className="muted" style={{ fontSize: 12 }}>
        Click to zoom in to these fires and read why each will or will not run
      </div>
    </div>
  );
}
