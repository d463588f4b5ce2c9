import { queryOptions } from "@tanstack/react-query";
import type { AlertKind, AlertSeverity } from "@/core/alerts/alert-kinds";
import { fetchJson } from "../ui/fetch-json";

export interface AlertDeliveryView {
  id: string;
  event: "opened" | "resolved";
  url: string;
  state: "pending" | "delivered" | "failed";
  attempts: number;
  nextAttemptAt: string;
  lastStatus: number | null;
  lastError: string | null;
  deliveredAt: string | null;
}

export interface AlertView {
  id: string;
  kind: AlertKind;
  severity: AlertSeverity;
  message: string;
  scheduleId: string | null;
  scheduleName: string | null;
  runId: string | null;
  openedAt: string;
  lastSeenAt: string;
  resolvedAt: string | null;
  resolution: string | null;
  occurrences: number;
  acknowledgedAt: string | null;
  acknowledgedBy: string | null;
  deliveries: AlertDeliveryView[];
}

export interface AlertSummaryView {
  open: number;
  unacknowledged: number;
  critical: number;
  newest: { id: string; kind: AlertKind; severity: AlertSeverity; message: string; openedAt: string } | null;
}

export interface LatenessView {
  schedule: { id: string; name: string; latenessP95SloMs: number | null; latenessMaxMs: number | null; completionDeadlineSeconds: number | null };
  from: string;
  to: string;
  p95Ms: number | null;
  points: { runId: string; plannedAt: string; startedAt: string | null; latenessMs: number; completionGapMs: number | null; state: string }[];
}

export interface AlertFilters {
  state: "open" | "all";
  scheduleId?: string;
}

export const alertsQuery = (f: AlertFilters) =>
  queryOptions({
    queryKey: ["alerts", "list", f],
    queryFn: () => {
      const q = new URLSearchParams({ state: f.state, ...(f.scheduleId ? { scheduleId: f.scheduleId } : {}) });
      return fetchJson<{ alerts: AlertView[]; nextCursor: string | null }>(`/api/alerts?${q}`);
    },
    refetchInterval: 2000,
  });

export const alertSummaryQuery = () =>
  queryOptions({
    queryKey: ["alerts", "summary"],
    queryFn: () => fetchJson<AlertSummaryView>("/api/alerts/summary"),
    refetchInterval: 2000,
  });

export const scheduleLatenessQuery = (scheduleId: string, hours: number) =>
  queryOptions({
    queryKey: ["schedule-lateness", scheduleId, hours],
    queryFn: () => fetchJson<LatenessView>(`/api/schedules/${scheduleId}/lateness?hours=${hours}`),
    refetchInterval: 5000,
  });
