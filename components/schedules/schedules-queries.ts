// Query keys and fetchers for schedules, handlers and trigger previews: one queryOptions factory each,
// shared by every component that reads them.
import { queryOptions } from "@tanstack/react-query";
import { fetchJson } from "../ui/fetch-json";
import type { Jsonify } from "@/core/jsonify";
import type { HandlerListing } from "@/core/handlers/handler-registry";
import type { JsonSchema } from "./json-schema-check";
import type { TriggerBody } from "./schedule-form-values";

/** GET /api/handlers — core/handlers/handler-registry.ts HandlerListing. */
export type HandlerView = Omit<Jsonify<HandlerListing>, "payloadSchema"> & { payloadSchema: JsonSchema };

export interface FireTimeView {
  at: string;
  localTime: string;
  utcOffset: string;
  dst?: { kind: "gap" | "repeat"; note: string; skipped?: true };
}

/** POST /api/schedules/preview — core/schedules/preview-trigger.ts. */
export interface PreviewView {
  now: string;
  description: string;
  fires: FireTimeView[];
}

/** What pause / resume / trigger / backfill report (core/schedules/pause-schedule.ts ActionResult and kin). */
export interface ActionResultView {
  dryRun: boolean;
  count: number;
  plannedAt: string[];
  recordedPaused?: number;
  misfirePolicy?: string;
  runId?: string | null;
  fires?: number;
  alreadyCovered?: number;
  held?: number;
  pausedUntil?: string | null;
}

export const handlersQuery = () =>
  queryOptions({
    queryKey: ["handlers"],
    queryFn: () => fetchJson<{ handlers: HandlerView[] }>("/api/handlers"),
    // Which handlers a live worker serves changes when workers start and stop.
    staleTime: 5_000,
    refetchInterval: 10_000,
  });

export const triggerPreviewQuery = (trigger: TriggerBody, count = 10) =>
  queryOptions({
    queryKey: ["schedule-preview", trigger, count],
    queryFn: () => fetchJson<PreviewView>("/api/schedules/preview", { method: "POST", json: { trigger, count } }),
    retry: false,
    staleTime: 5_000,
  });

/**
 * A schedule as GET /api/schedules[/:id] returns it (core/schedules/list-schedules.ts ScheduleListItem: the
 * schedule record plus next fire, last outcome, 24 h counts and recent lateness; dates as ISO text).
 */
export interface ScheduleView {
  id: string;
  name: string;
  description: string;
  handler: string;
  payload: Record<string, unknown>;
  trigger: TriggerBody & { anchor?: string };
  triggerDescription: string;
  timezone: string;
  enabled: boolean;
  paused: { at: string; by: string | null; reason: string | null; until: string | null } | null;
  overlapPolicy: string;
  misfirePolicy: string;
  catchUpLimit: number;
  startingDeadlineSeconds: number;
  timeoutSeconds: number;
  graceSeconds: number;
  retryMaxAttempts: number;
  retryBaseSeconds: number;
  retryMaxSeconds: number;
  concurrencyGroup: string | null;
  concurrencyLimit: number | null;
  startJitterMs: number;
  expectRecordsMin: number | null;
  latenessP95SloMs: number | null;
  latenessMaxMs: number | null;
  completionDeadlineSeconds: number | null;
  failureAlertThreshold: number | null;
  webhookUrl: string | null;
  revision: number;
  createdBy: string | null;
  createdAt: string;
  updatedAt: string;
  nextFireAt: string | null;
  lastRun: { id: string; state: string; plannedAt: string; finishedAt: string | null; latenessMs: number | null } | null;
  counts24h: { late: number; missed: number; hollow: number; failed: number };
  /** Lateness (ms) of the most recent started runs, oldest first. */
  recentLateness: number[];
}

export const schedulesQuery = () =>
  queryOptions({
    queryKey: ["schedules"],
    queryFn: () => fetchJson<{ schedules: ScheduleView[] }>("/api/schedules"),
    refetchInterval: 2000,
  });

export const scheduleQuery = (id: string) =>
  queryOptions({
    queryKey: ["schedules", id],
    queryFn: () => fetchJson<{ schedule: ScheduleView }>(`/api/schedules/${id}`),
    refetchInterval: 2000,
  });
