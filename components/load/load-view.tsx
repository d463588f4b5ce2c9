"use client";
import { useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { useCan } from "../ui/use-can";
import { usePickedTeam } from "../ui/use-picked-team";
import { formatDuration, formatInZone } from "../ui/time-format";
import { LoadChart } from "./load-chart";
import { loadForecastQuery, type LoadSelection } from "./load-queries";
import { SpreadPanel } from "./spread-panel";

/** The Load page: due runs per minute ahead (fleet, group or tag; 24 h or 7 days), bursts, groups, and the spread action. */
export function LoadView() {
  const [selection, setSelection] = useState<LoadSelection>({ window: "24h", by: "fleet" });
  const { data, error, isLoading } = useQuery(loadForecastQuery(selection, usePickedTeam()));
  const canOperate = useCan("operate");
  const options = data?.options;
  const keys = selection.by === "group" ? (options?.groups ?? []) : selection.by === "tag" ? (options?.tags ?? []) : [];

  return (
    <>
      <div className="row" role="group" aria-label="What to show">
        <label>
          Window{" "}
          <select
            value={selection.window}
            onChange={(e) => setSelection({ ...selection, window: e.target.value as LoadSelection["window"] })}
            data-testid="load-window"
          >
            <option value="24h">next 24 h</option>
            <option value="7d">next 7 days</option>
          </select>
        </label>
        <label>
          Scope{" "}
          <select
            value={selection.by}
            onChange={(e) => {
              const by = e.target.value as LoadSelection["by"];
              const first = by === "group" ? options?.groups[0] : by === "tag" ? options?.tags[0] : undefined;
              setSelection({ window: selection.window, by, ...(first ? { key: first } : {}) });
            }}
            data-testid="load-scope"
          >
            <option value="fleet">whole fleet</option>
            <option value="group">concurrency group</option>
            <option value="tag">tag</option>
          </select>
        </label>
        {selection.by !== "fleet" && (
          <label>
            {selection.by === "group" ? "Group" : "Tag"}{" "}
            <select
              value={selection.key ?? ""}
              onChange={(e) => setSelection({ ...selection, key: e.target.value })}
              data-testid="load-key"
            >
              {keys.length === 0 && <option value="">none</option>}
              {keys.map((k) => (
                <option key={k} value={k}>
                  {k}
                </option>
              ))}
            </select>
          </label>
        )}
      </div>

      {error && (
        <p className="error" role="alert">
          {String((error as Error).message)}
        </p>
      )}
      {isLoading && <p className="muted">Computing the plan…</p>}
      {data && (
        <>
          <section className="card" aria-labelledby="load-curve-title">
            <h2 id="load-curve-title" style={{ marginTop: 0 }}>
              Due runs per minute{data.curve.pointMinutes > 1 ? " (busiest minute of every 10)" : ""}
            </h2>
            <p data-testid="load-summary">
              {data.schedules} schedule{data.schedules === 1 ? "" : "s"}, {data.curve.total} runs due from {formatInZone(data.from)} to{" "}
              {formatInZone(data.until)}.{" "}
              {data.curve.peak.at && (
                <>
                  Busiest minute: <strong>{data.curve.peak.due}</strong> due at {formatInZone(data.curve.peak.at)}.
                </>
              )}
            </p>
            <LoadChart curve={data.curve} bursts={data.bursts} />
            <p className="muted small">
              Red marks: bursts, where a concurrency group has more runs due at once than its limit, labelled with how late the last of them
              is expected to start (from the runs&apos; measured median durations).
            </p>
          </section>

          {data.groups.length > 0 && (
            <section className="card" aria-labelledby="load-groups-title">
              <h2 id="load-groups-title" style={{ marginTop: 0 }}>
                Concurrency groups
              </h2>
              <table className="table compact" data-testid="load-groups">
                <thead>
                  <tr>
                    <th>Group</th>
                    <th>Limit</th>
                    <th>Schedules</th>
                    <th>Due</th>
                    <th>Busiest minute</th>
                    <th>Bunched minutes</th>
                    <th>Worst last start</th>
                  </tr>
                </thead>
                <tbody>
                  {data.groups.map((g) => (
                    <tr key={g.name}>
                      <td>{g.name}</td>
                      <td>
                        {g.limit}
                        {g.startRateLimit ? ` (${g.startRateLimit.maxStarts} starts / ${g.startRateLimit.perSeconds} s)` : ""}
                      </td>
                      <td>{g.schedules}</td>
                      <td>{g.due}</td>
                      <td>{g.peakPerMinute}</td>
                      <td>{g.bunchedMinutes}</td>
                      <td>
                        {g.worstLatenessMs === null
                          ? g.bunchedMinutes > 0
                            ? "unknown: no finished runs to measure"
                            : "—"
                          : `${formatDuration(g.worstLatenessMs)} late`}
                        {g.durationsMeasured < g.schedules && g.durationsMeasured > 0 && (
                          <span className="muted small"> ({g.durationsMeasured} measured)</span>
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </section>
          )}

          {data.bursts.length > 0 && (
            <section className="card" aria-labelledby="load-bursts-title">
              <h2 id="load-bursts-title" style={{ marginTop: 0 }}>
                Bursts
              </h2>
              <table className="table compact" data-testid="load-bursts">
                <thead>
                  <tr>
                    <th>Due at</th>
                    <th>Group</th>
                    <th>Due / limit</th>
                    <th>Last one starts</th>
                  </tr>
                </thead>
                <tbody>
                  {data.bursts.slice(0, 20).map((b) => (
                    <tr key={`${b.group}-${b.at}`}>
                      <td>{formatInZone(b.at)}</td>
                      <td>{b.group}</td>
                      <td>
                        {b.due} / {b.limit}
                      </td>
                      <td>
                        {b.lastStartLatenessMs === null
                          ? "unknown (no measured durations)"
                          : `${formatDuration(b.lastStartLatenessMs)} late (runs take ~${formatDuration(b.meanDurationMs ?? 0)})`}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </section>
          )}

          {selection.by !== "fleet" && selection.key && canOperate && (
            <SpreadPanel
              key={`${selection.by}:${selection.key}:${selection.window}`}
              selection={{ ...selection, by: selection.by, key: selection.key }}
            />
          )}
          {selection.by === "fleet" && canOperate && (
            <p className="muted small">Choose a concurrency group or a tag to preview spreading its schedules over the hour.</p>
          )}
        </>
      )}
    </>
  );
}
