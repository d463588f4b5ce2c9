// Query key and fetcher for the timeline window; the response is mapped once into the drawing model.
import { queryOptions } from "@tanstack/react-query";
import { fetchJson } from "../ui/fetch-json";
import { finishLane, type TimelineModel, type TimelineRun } from "./timeline-model";
import { resolveWindow, windowKey, type TimelineWindow } from "./timeline-window";

/** GET /api/timeline — PLACEHOLDER until the route lands; mapped by toTimelineModel. */
export interface TimelineApi {
  from: string;
  to: string;
  now: string;
  schedules: { id: string; name: string }[];
  runs: {
    id: string;
    scheduleId: string;
    kind: string;
    state: string;
    plannedAt: string;
    dueAt: string | null;
    startedAt: string | null;
    finishedAt: string | null;
    latenessMs: number | null;
    attempts: { number: number; startedAt: string; finishedAt: string | null; state: string }[];
  }[];
}

const ms = (iso: string | null | undefined) => (iso ? Date.parse(iso) : null);

export function toTimelineModel(api: TimelineApi): TimelineModel {
  const now = Date.parse(api.now);
  const byLane = new Map<string, TimelineRun[]>(api.schedules.map((s) => [s.id, []]));
  for (const r of api.runs) {
    let list = byLane.get(r.scheduleId);
    if (!list) byLane.set(r.scheduleId, (list = []));
    list.push({
      runId: r.id,
      kind: r.kind,
      state: r.state,
      plannedAt: Date.parse(r.plannedAt),
      dueAt: ms(r.dueAt),
      startedAt: ms(r.startedAt),
      finishedAt: ms(r.finishedAt),
      latenessMs: r.latenessMs,
      attempts: r.attempts.map((a) => ({ number: a.number, startedAt: Date.parse(a.startedAt), finishedAt: ms(a.finishedAt), state: a.state })),
    });
  }
  const names = new Map(api.schedules.map((s) => [s.id, s.name]));
  const lanes = [...byLane].map(([id, runs]) => finishLane(id, names.get(id) ?? id.slice(0, 8), runs, now));
  lanes.sort((a, b) => a.name.localeCompare(b.name));
  return { from: Date.parse(api.from), to: Date.parse(api.to), now, lanes };
}

export const timelineQuery = (w: TimelineWindow, scheduleId: string | undefined) =>
  queryOptions({
    queryKey: ["timeline", windowKey(w), scheduleId ?? null],
    queryFn: async () => {
      // A relative window is resolved at fetch time so every refresh slides with the clock.
      const { from, to } = resolveWindow(w, Date.now());
      const p = new URLSearchParams({ from: new Date(from).toISOString(), to: new Date(to).toISOString() });
      if (scheduleId) p.set("scheduleId", scheduleId);
      return toTimelineModel(await fetchJson<TimelineApi>(`/api/timeline?${p}`));
    },
    // The model is rebuilt whole on every fetch; comparing 20k runs deeply would only cost time.
    structuralSharing: false,
    refetchInterval: w.kind === "relative" || w.to > Date.now() ? 2000 : false,
  });
