// Query keys and fetchers for schedules, handlers and trigger previews: one queryOptions factory each,
// shared by every component that reads them.
import { queryOptions } from "@tanstack/react-query";
import { fetchJson } from "../ui/fetch-json";
import type { JsonSchema } from "./json-schema-check";
import type { TriggerBody } from "./schedule-form-values";

export interface HandlerView {
  name: string;
  description: string;
  payloadSchema: JsonSchema;
}

export interface FireTimeView {
  at: string;
  localTime: string;
  utcOffset: string;
  dst?: { kind: "gap" | "repeat"; note: string; skipped?: true };
}

export interface PreviewView {
  fireTimes: FireTimeView[];
  description?: string;
}

export const handlersQuery = () =>
  queryOptions({
    queryKey: ["handlers"],
    queryFn: () => fetchJson<{ handlers: HandlerView[] }>("/api/handlers"),
    staleTime: 60_000,
  });

export const triggerPreviewQuery = (trigger: TriggerBody, count = 10) =>
  queryOptions({
    queryKey: ["schedule-preview", trigger, count],
    queryFn: () => fetchJson<PreviewView>("/api/schedules/preview", { method: "POST", json: { trigger, count } }),
    retry: false,
    staleTime: 5_000,
  });
