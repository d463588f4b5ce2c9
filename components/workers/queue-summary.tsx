"use client";
import { queryOptions, useQuery } from "@tanstack/react-query";
import { fetchJson } from "../ui/fetch-json";
import type { Jsonify } from "@/core/jsonify";
import type { QueueSummary } from "@/core/metrics/get-queue-summary";
import { formatDuration } from "../ui/time-format";
import { livePoll } from "../ui/live-updates";

/** GET /api/metrics/summary's queue part (core/metrics/get-queue-summary.ts). */
type QueueSummaryView = Jsonify<QueueSummary>;

export const queueSummaryQuery = () =>
  queryOptions({
    queryKey: ["queue-summary"],
    queryFn: () => fetchJson<QueueSummaryView>("/api/metrics/summary"),
    refetchInterval: livePoll(2000),
  });

/** Queue depth (due runs and pg-boss jobs; what is enqueued ahead is shown apart), running and retrying runs, and the worst planner lag among live workers. */
export function QueueSummary() {
  const { data } = useQuery(queueSummaryQuery());
  if (!data) return null;
  const maxLag = data.plannerLag.length > 0 ? Math.max(...data.plannerLag.map((w) => w.plannerLagMs)) : null;
  const items: [string, string, string][] = [
    [
      "Queue depth",
      `${data.runsQueued} run${data.runsQueued === 1 ? "" : "s"}`,
      [
        data.runsWaiting > 0 ? `due; ${data.runsWaiting} held (overlap, concurrency or start-rate limit)` : "due and not started yet",
        `${data.runsAhead} enqueued ahead of their time`,
      ].join(" · "),
    ],
    [
      "pg-boss jobs",
      data.jobsQueued === null ? "—" : `${data.jobsQueued} queued · ${data.jobsActive} active`,
      data.jobsAhead === null
        ? "jobs not yet fetched / being worked on"
        : `may start, not fetched / being worked on · ${data.jobsAhead} ahead`,
    ],
    ["Running", `${data.runsRunning}`, data.runsRetrying > 0 ? `${data.runsRetrying} retrying` : "runs executing now"],
    [
      "Planner lag",
      maxLag === null ? "—" : formatDuration(maxLag),
      data.schedulesBehindPlan > 0
        ? `${data.schedulesBehindPlan} schedule${data.schedulesBehindPlan === 1 ? "" : "s"} not planned through now`
        : maxLag === null
          ? "no live worker reports it"
          : "worst among live workers",
    ],
  ];
  return (
    <div className="grid-3" style={{ gridTemplateColumns: "repeat(4, 1fr)", marginBottom: 16 }} data-testid="queue-summary">
      {items.map(([label, value, hint]) => (
        <div key={label} className="card" style={{ margin: 0 }} data-testid={`queue-${label.toLowerCase().replace(/[^a-z]+/g, "-")}`}>
          <div className="muted small">{label}</div>
          <div style={{ fontSize: 20, fontWeight: 600 }}>{value}</div>
          <div className="muted small">{hint}</div>
        </div>
      ))}
    </div>
  );
}
