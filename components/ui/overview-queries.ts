import { queryOptions } from "@tanstack/react-query";
import { fetchJson } from "./fetch-json";

export interface AttentionCounts {
  late: number;
  missed: number;
  hollow: number;
  zombie: number;
  failed: number;
}

export interface OverviewView {
  now: string;
  windowMinutes: number;
  lastHour: AttentionCounts;
  running: number;
  queued: number;
}

export const overviewQuery = () =>
  queryOptions({
    queryKey: ["overview"],
    queryFn: () => fetchJson<OverviewView>("/api/overview"),
    refetchInterval: 2000,
  });
