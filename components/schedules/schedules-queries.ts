// Query keys and fetchers for schedules, handlers and trigger previews: one queryOptions factory each,
// shared by every component that reads them.
import { queryOptions } from "@tanstack/react-query";
import { fetchJson } from "../ui/fetch-json";
import { fetchJsonConditional } from "../ui/fetch-json-conditional";
import type { Jsonify } from "@/core/jsonify";
import type { HandlerListing } from "@/core/handlers/handler-registry";
import type { BackfillResult } from "@/core/schedules/backfill-schedule";
import type { ScheduleListItem } from "@/core/schedules/list-schedules";
import type { ScheduleSort } from "@/core/schedules/schedule-sorts";
import type { ActionResult, PauseResult } from "@/core/schedules/pause-schedule";
import type { PreviewResult } from "@/core/schedules/preview-trigger";
import type { ResumeResult } from "@/core/schedules/resume-schedule";
import type { Trigger } from "@/core/schedules/trigger";
import type { TriggerNowResult } from "@/core/schedules/trigger-now";
import type { JsonSchema } from "./json-schema-check";
import { livePoll } from "../ui/live-updates";

/** GET /api/handlers — core/handlers/handler-registry.ts HandlerListing. */
export type HandlerView = Omit<Jsonify<HandlerListing>, "payloadSchema"> & { payloadSchema: JsonSchema };

/** POST /api/schedules/preview — core/schedules/preview-trigger.ts. */
export type PreviewView = Jsonify<PreviewResult>;
export type FireTimeView = PreviewView["fires"][number];

/** What pause / resume / trigger / backfill report: core/schedules/pause-schedule.ts ActionResult and its kin. */
export type ActionResultView = ActionResult & Partial<Jsonify<PauseResult & ResumeResult & TriggerNowResult & BackfillResult>>;

export const handlersQuery = () =>
  queryOptions({
    queryKey: ["handlers"],
    queryFn: () => fetchJson<{ handlers: HandlerView[] }>("/api/handlers"),
    // Which handlers a live worker serves changes when workers start and stop.
    staleTime: 5_000,
    refetchInterval: livePoll(10_000),
  });

/** With `scheduleId`, each fire carries its fate from the saved schedule's plan (calendars, dates, pause). */
export const triggerPreviewQuery = (trigger: Jsonify<Trigger>, count = 10, scheduleId?: string) =>
  queryOptions({
    queryKey: ["schedule-preview", trigger, count, scheduleId ?? null],
    queryFn: () => fetchJson<PreviewView>("/api/schedules/preview", { method: "POST", json: { trigger, count, scheduleId } }),
    retry: false,
    staleTime: 5_000,
  });

/**
 * A schedule as GET /api/schedules[/:id] returns it (core/schedules/list-schedules.ts ScheduleListItem: the
 * schedule record plus next fire, last outcome, 24 h counts and recent lateness; dates as ISO text).
 */
export type ScheduleView = Jsonify<ScheduleListItem>;

/** One page of GET /api/schedules (core/schedules/list-schedules.ts SchedulePage). */
export interface SchedulePageView {
  schedules: ScheduleView[];
  total: number;
  offset: number;
  limit: number;
}

/** The list's controls, as the page's URL carries them (empty values are left out). */
export interface ScheduleListParams {
  q?: string;
  tag?: string;
  sort?: ScheduleSort;
  dir?: "asc" | "desc";
  offset?: number;
  limit?: number;
  /** One of the caller's teams (the header's team switcher). */
  team?: string;
}

export function schedulesUrl(p: ScheduleListParams): string {
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(p)) if (v !== undefined && v !== "" && v !== null) qs.set(k, String(v));
  const text = qs.toString();
  return text ? `/api/schedules?${text}` : "/api/schedules";
}

/** A page of schedules, polled with the last answer's ETag: an unchanged list costs the server one cheap read. */
export const schedulesPageQuery = (p: ScheduleListParams) =>
  queryOptions({
    queryKey: ["schedules", "page", p],
    queryFn: () => fetchJsonConditional<SchedulePageView>(schedulesUrl(p)),
    refetchInterval: livePoll(2000),
  });

/** The first 500 schedules by name, for pickers (not polled by default). */
export const schedulesQuery = () =>
  queryOptions({
    queryKey: ["schedules", "pick"],
    queryFn: () => fetchJsonConditional<SchedulePageView>(schedulesUrl({ limit: 500 })),
    refetchInterval: livePoll(2000),
  });

export const scheduleQuery = (id: string) =>
  queryOptions({
    queryKey: ["schedules", id],
    queryFn: () => fetchJson<{ schedule: ScheduleView }>(`/api/schedules/${id}`),
    refetchInterval: livePoll(2000),
  });
/** GET /api/schedules/:id/daily — core/retention/list-daily-summaries.ts: per-day counts kept after the runs expire. */
export type DailySummariesView = Jsonify<Awaited<ReturnType<typeof import("@/core/retention/list-daily-summaries").listDailySummaries>>>;

export const dailySummariesQuery = (id: string, days = 90) =>
  queryOptions({
    queryKey: ["schedules", id, "daily", days],
    queryFn: () => fetchJson<DailySummariesView>(`/api/schedules/${id}/daily?days=${days}`),
    staleTime: 60_000,
  });
