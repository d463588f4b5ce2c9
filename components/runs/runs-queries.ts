// Query keys and fetchers for runs: the filtered list and one run's trace.
import { queryOptions } from "@tanstack/react-query";
import { fetchJson } from "../ui/fetch-json";
import type { Jsonify } from "@/core/jsonify";
import type { RunListItem } from "@/core/runs/list-runs";

/** A row of the runs list as the API sends it. */
export type RunView = Jsonify<RunListItem>;

export interface RunFilters {
  state?: string;
  scheduleId?: string;
  from?: string;
  to?: string;
  limit?: number;
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
    refetchInterval: 2000,
  });

/** GET /api/runs/:id — core/runs/get-run.ts getRunTrace, dates as ISO text. */
export interface RunTraceView {
  run: {
    id: string;
    scheduleId: string;
    scheduleName: string;
    kind: string;
    state: string;
    waitReason: string | null;
    handler: string;
    payload: unknown;
    idempotencyKey: string;
    attempt: number;
    maxAttempts: number;
    reruns: number;
    workerId: string | null;
    timeoutSeconds: number;
    graceSeconds: number;
    concurrencyGroup: string | null;
    overlapPolicy: string;
    expectRecordsMin: number | null;
    records: number | null;
    result: unknown;
    error: string | null;
    nextAttemptAt: string | null;
    cancelRequestedAt: string | null;
    cancelRequestedBy: string | null;
    cancelReason: string | null;
    timings: {
      plannedAt: string;
      dueAt: string;
      enqueuedAt: string | null;
      startedAt: string | null;
      heartbeatAt: string | null;
      finishedAt: string | null;
      latenessMs: number | null;
      lateness: "on_time" | "late" | null;
      durationMs: number | null;
      completionGapMs: number | null;
      heartbeatAgeMs: number | null;
    };
  };
  events: { id: number; at: string; type: string; attempt: number | null; workerId: string | null; message: string; data: unknown }[];
  attempts: {
    number: number;
    state: string;
    workerId: string | null;
    startedAt: string;
    heartbeatAt: string | null;
    finishedAt: string | null;
    durationMs: number | null;
    records: number | null;
    error: string | null;
  }[];
  logs: { id: number; at: string; attempt: number; level: string; message: string; fields: unknown }[];
  logsTruncated: boolean;
}

export const runTraceQuery = (id: string) =>
  queryOptions({
    queryKey: ["runs", "trace", id],
    queryFn: () => fetchJson<RunTraceView>(`/api/runs/${id}`),
    refetchInterval: (q) => (q.state.data && isSettled(q.state.data) ? 2000 : 1000),
  });

const SETTLED = new Set(["succeeded", "failed", "timed_out", "cancelled", "skipped_overlap", "missed", "paused", "hollow"]);

/** A finished run changes rarely (a late stage event at most): poll it less often. */
function isSettled(t: RunTraceView): boolean {
  return SETTLED.has(t.run.state);
}
