// Query keys and fetchers for runs: the filtered list and one run's trace.
import { queryOptions } from "@tanstack/react-query";
import { fetchJson } from "../ui/fetch-json";
import type { Jsonify } from "@/core/jsonify";
import type { RunTrace } from "@/core/runs/read/get-run";
import type { RunListItem } from "@/core/runs/read/list-runs";
import type { getRunChain } from "@/core/runs/chain/chain-occurrences";
import { livePoll } from "../ui/live-updates";

const settledPoll = livePoll(2000);

/** A row of the runs list as the API sends it. */
export type RunView = Jsonify<RunListItem>;

export interface RunFilters {
  state?: string;
  scheduleId?: string;
  from?: string;
  to?: string;
  /** late | on_time (core/runs/lateness.ts's rule). */
  lateness?: string;
  /** Runs of schedules with this tag (the API takes several, comma-separated). */
  tag?: string;
  limit?: number;
  /** One of the caller's teams (the header's team switcher). */
  team?: string;
}

export interface RunsPage {
  runs: RunView[];
  nextCursor: string | null;
}

function qs(f: RunFilters & { cursor?: string }): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(f)) if (v !== undefined && v !== "") p.set(k, String(v));
  const s = p.toString();
  return s ? `?${s}` : "";
}

export const runsQuery = (filters: RunFilters, cursor?: string) =>
  queryOptions({
    queryKey: ["runs", "list", filters, cursor ?? null],
    queryFn: () => fetchJson<RunsPage>(`/api/runs${qs({ ...filters, cursor })}`),
    refetchInterval: livePoll(2000),
  });

/** GET /api/runs/:id — core/runs/read/get-run.ts getRunTrace, dates as ISO text. */
export type RunTraceView = Jsonify<RunTrace>;

export const runTraceQuery = (id: string) =>
  queryOptions({
    queryKey: ["runs", "trace", id],
    queryFn: () => fetchJson<RunTraceView>(`/api/runs/${id}`),
    // A running run's trace grows with its log lines and heartbeats, which the change stream does not announce.
    refetchInterval: (q) => (q.state.data && isSettled(q.state.data) ? settledPoll() : 1000),
  });

/** GET /api/runs/:id/chain — core/runs/chain/chain-occurrences.ts getRunChain. */
export type RunChainView = Jsonify<Awaited<ReturnType<typeof getRunChain>>>;

export const runChainQuery = (id: string) =>
  queryOptions({
    queryKey: ["runs", "chain", id],
    queryFn: () => fetchJson<RunChainView>(`/api/runs/${id}/chain`),
    refetchInterval: livePoll(2000),
  });

const SETTLED = new Set(["succeeded", "failed", "timed_out", "cancelled", "skipped_overlap", "missed", "paused", "excluded", "hollow"]);

/** A finished run changes rarely (a late stage event at most): poll it less often. */
function isSettled(t: RunTraceView): boolean {
  return SETTLED.has(t.run.state);
}
