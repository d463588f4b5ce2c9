"use client";
// Every handler a schedule can use, where it comes from, and whether a live worker serves it now.
import { useQuery } from "@tanstack/react-query";
import { handlersQuery } from "../schedules/schedules-queries";
import { formatInZone } from "../ui/time-format";

export function HandlersTable() {
  const { data, error, isLoading } = useQuery(handlersQuery());
  if (isLoading) return <p className="muted">Loading handlers…</p>;
  if (error) return <p className="error">Could not load handlers: {error.message}</p>;
  const handlers = data?.handlers ?? [];
  return (
    <table className="table" data-testid="handlers-table">
      <thead>
        <tr>
          <th>Handler</th>
          <th>Served by</th>
          <th>From</th>
          <th>Version</th>
          <th>Last advertised</th>
          <th>What it does</th>
        </tr>
      </thead>
      <tbody>
        {handlers.map((h) => (
          <tr key={h.name} data-testid="handler-row" data-handler={h.name} data-live={h.liveWorkers > 0}>
            <td className="mono">{h.name}</td>
            <td>
              {h.liveWorkers > 0 ? (
                <span className="pill ok">
                  {h.liveWorkers} live worker{h.liveWorkers === 1 ? "" : "s"}
                  {h.liveVersions > 1 ? ` · ${h.liveVersions} versions` : ""}
                </span>
              ) : (
                <span className="pill bad" title="Runs of this handler wait (and alert) until a worker that loads it starts">
                  no live worker
                </span>
              )}
            </td>
            <td className="mono small">{h.builtin ? "built-in" : h.source}</td>
            <td className="mono small">{h.hash ?? "—"}</td>
            <td className="small">{h.lastSeenAt ? formatInZone(h.lastSeenAt) : "never"}</td>
            <td className="muted small">{h.description}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
