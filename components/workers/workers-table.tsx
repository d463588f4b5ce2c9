"use client";
import { useQuery } from "@tanstack/react-query";
import { workersQuery } from "./workers-queries";
import { QueueSummary } from "./queue-summary";
import { BUILTIN_HANDLER_SPECS } from "@/core/handlers/builtin-handler-specs";

const BUILTIN = new Set<string>(BUILTIN_HANDLER_SPECS.map((s) => s.name));

function age(ms: number): string {
  if (ms < 1000) return "just now";
  if (ms < 60_000) return `${Math.round(ms / 1000)} s ago`;
  if (ms < 3_600_000) return `${Math.round(ms / 60_000)} min ago`;
  return `${Math.round(ms / 3_600_000)} h ago`;
}

export function WorkersTable() {
  const { data, error, isLoading } = useQuery(workersQuery());
  if (isLoading) return <p className="muted">Loading workers…</p>;
  if (error) return <p className="error">Could not load workers: {error.message}</p>;
  const workers = data?.workers ?? [];
  if (workers.length === 0)
    return (
      <p className="muted">
        No worker has ever registered. Start one with <code>npm run worker</code>.
      </p>
    );
  return (
    <>
      <QueueSummary />
      <table className="table" data-testid="workers-table">
        <thead>
          <tr>
            <th>Status</th>
            <th>Worker</th>
            <th>Host / pid</th>
            <th>Version</th>
            <th>Heartbeat</th>
            <th>Running</th>
            <th>Planner lag</th>
            <th>Handlers</th>
            <th>Pool</th>
          </tr>
        </thead>
        <tbody>
          {workers.map((w) => (
            <tr key={w.id} data-testid="worker-row" data-live={w.live}>
              <td>
                <span className={`pill ${w.live ? "ok" : "bad"}`}>
                  {w.live ? "● live" : w.state === "stopped" ? "■ stopped" : "✕ dead"}
                </span>
              </td>
              <td className="mono">{w.id}</td>
              <td>
                {w.host} / {w.pid}
              </td>
              <td>{w.version}</td>
              <td>{age(w.heartbeatAgeMs)}</td>
              <td>
                {w.running} / {w.capacity}
              </td>
              <td>{w.plannerLagMs === null ? "—" : `${w.plannerLagMs} ms`}</td>
              <td className="small" data-testid="worker-handlers" title={w.handlers.join("\n")}>
                {w.handlers.length === 0
                  ? "—"
                  : `${w.handlers.length}: ${w.handlers.filter((h) => !BUILTIN.has(h)).join(", ") || "built-ins"}`}
              </td>
              <td
                data-testid="worker-pool"
                title="Teams assigned this pool run only here; a worker without one serves the teams without a pool."
              >
                {w.pool ?? <span className="muted">none</span>}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
