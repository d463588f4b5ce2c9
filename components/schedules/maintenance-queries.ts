// Query key and fetcher for the open maintenance windows (GET /api/schedules/maintenance), shared by the banner on
// every page and the schedules page's Maintenance control.
import { queryOptions } from "@tanstack/react-query";
import { fetchJson } from "../ui/fetch-json";
import type { Jsonify } from "@/core/jsonify";
import type { MaintenanceResult, MaintenanceWindow } from "@/core/schedules/maintenance";
import { livePoll } from "../ui/live-updates";

export type MaintenanceWindowView = Jsonify<MaintenanceWindow>;
export type MaintenanceResultView = Jsonify<MaintenanceResult>;

export const maintenanceQuery = () =>
  queryOptions({
    queryKey: ["maintenance"],
    queryFn: () => fetchJson<{ maintenance: MaintenanceWindowView[] }>("/api/schedules/maintenance"),
    refetchInterval: livePoll(5000),
  });
