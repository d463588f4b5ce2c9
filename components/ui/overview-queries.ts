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

export interface ScheduleStatsView {
  scheduleId: string;
  lastRun: { runId: string; state: string; plannedAt: string; finishedAt: string | null } | null;
  nextFireAt: string | null;
  nextFireSource: "planned" | "computed" | null;
  last24h: { late: number; missed: number; hollow: number; failed: number; total: number };
  lateness: { plannedAt: string; latenessMs: number }[];
}

export const overviewQuery = () =>
  queryOptions({
    queryKey: ["overview"],
    queryFn: () => fetchJson<OverviewView>("/api/overview"),
    refetchInterval: 2000,
  });

export const scheduleStatsQuery = () =>
  queryOptions({
    queryKey: ["overview", "schedules"],
    queryFn: () => fetchJson<{ now: string; schedules: ScheduleStatsView[] }>("/api/overview/schedules"),
    refetchInterval: 2000,
  });
