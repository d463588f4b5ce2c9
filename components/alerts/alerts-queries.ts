import { queryOptions } from "@tanstack/react-query";
import { fetchJson } from "../ui/fetch-json";
import type { Jsonify } from "@/core/jsonify";
import type { AlertView as CoreAlertView } from "@/core/alerts/list-alerts";
import type { AlertSummary } from "@/core/alerts/get-alert-summary";
import type { AlertSettings } from "@/core/alerts/alert-settings";
import type { AlertChannelView as CoreAlertChannelView } from "@/core/alerts/channels/alert-channel-types";
import type { ScheduleLateness } from "@/core/metrics/get-schedule-lateness";
import { fetchJsonConditional } from "../ui/fetch-json-conditional";
import { livePoll } from "../ui/live-updates";

/** An alert and its webhook deliveries as the API sends them (core/alerts/list-alerts.ts). */
export type AlertView = Jsonify<CoreAlertView>;
export type AlertDeliveryView = AlertView["deliveries"][number];

/** GET /api/alerts/summary — core/alerts/get-alert-summary.ts. */
export type AlertSummaryView = Jsonify<AlertSummary>;

/** GET /api/schedules/:id/lateness — core/metrics/get-schedule-lateness.ts. */
export type LatenessView = Jsonify<ScheduleLateness>;

export interface AlertFilters {
  state: "open" | "all";
  scheduleId?: string;
  /** Alerts of schedules with this tag. */
  tag?: string;
  /** One of the caller's teams (the header's team switcher). */
  team?: string;
}

export const alertsQuery = (f: AlertFilters) =>
  queryOptions({
    queryKey: ["alerts", "list", f],
    queryFn: () => {
      const q = new URLSearchParams({
        state: f.state,
        ...(f.scheduleId ? { scheduleId: f.scheduleId } : {}),
        ...(f.tag ? { tag: f.tag } : {}),
        ...(f.team ? { team: f.team } : {}),
      });
      return fetchJson<{ alerts: AlertView[]; nextCursor: string | null }>(`/api/alerts?${q}`);
    },
    refetchInterval: livePoll(2000),
  });

/** team: one of the caller's teams (the header's team switcher), as the alerts list narrows. */
export const alertSummaryQuery = (team?: string) =>
  queryOptions({
    queryKey: ["alerts", "summary", team ?? null],
    // On every page's header: an unchanged summary is a 304 (app/api/_lib/conditional-json.ts).
    queryFn: () => fetchJsonConditional<AlertSummaryView>(`/api/alerts/summary${team ? `?team=${encodeURIComponent(team)}` : ""}`),
    refetchInterval: livePoll(2000),
  });

export const scheduleLatenessQuery = (scheduleId: string, hours: number) =>
  queryOptions({
    queryKey: ["schedule-lateness", scheduleId, hours],
    queryFn: () => fetchJson<LatenessView>(`/api/schedules/${scheduleId}/lateness?hours=${hours}`),
    refetchInterval: livePoll(5000),
  });

/** GET /api/alerts/settings — the global defaults (core/alerts/alert-settings.ts); they change only with a restart. */
export const alertSettingsQuery = () =>
  queryOptions({
    queryKey: ["alert-settings"],
    queryFn: () => fetchJson<AlertSettings>("/api/alerts/settings"),
    staleTime: Infinity,
  });

/** GET /api/alert-channels — core/alerts/channels/alert-channel-types.ts (operators; secrets only as set / not set). */
export type AlertChannelView = Jsonify<CoreAlertChannelView>;

/** team: only that team's channels (the header's team switcher). */
export const alertChannelsQuery = (team?: string) =>
  queryOptions({
    queryKey: team ? ["alert-channels", { team }] : ["alert-channels"],
    queryFn: () => fetchJson<{ channels: AlertChannelView[] }>(`/api/alert-channels${team ? `?team=${encodeURIComponent(team)}` : ""}`),
  });
