import { queryOptions } from "@tanstack/react-query";
import type { AlertKind, AlertSeverity } from "@/core/alerts/alert-kinds";
import { fetchJson } from "../ui/fetch-json";
import type { Jsonify } from "@/core/jsonify";
import type { AlertView as CoreAlertView } from "@/core/alerts/list-alerts";

/** An alert and its webhook deliveries as the API sends them (core/alerts/list-alerts.ts). */
export type AlertView = Jsonify<CoreAlertView>;
export type AlertDeliveryView = AlertView["deliveries"][number];

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
