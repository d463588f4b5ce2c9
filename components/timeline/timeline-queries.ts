// Query key and fetcher for the timeline window; the response is mapped once into the drawing model.
import { queryOptions } from "@tanstack/react-query";
import { fetchJson } from "../ui/fetch-json";
import { fetchJsonConditional } from "../ui/fetch-json-conditional";
import type { Jsonify } from "@/core/jsonify";
import type { Timeline } from "@/core/runs/read/timeline";
import { noLiveWorkerText } from "@/core/queue/worker-pool";
import {
  finishLane,
  type ForecastBucket,
  type ForecastMark,
  type TimelineBucket,
  type TimelineLane,
  type TimelineModel,
  type TimelineRun,
} from "./timeline-model";
import { snappedWindow, snapToStep, timelineUrl, windowKey, type TimelineLaneView, type TimelineWindow } from "./timeline-window";
import { livePoll } from "../ui/live-updates";

/** GET /api/timeline (core/runs/read/timeline.ts getTimeline): compact on purpose, see the tuple layouts there. */
export type TimelineApi = Jsonify<Timeline>;

export interface TimelineData {
  model: TimelineModel;
  /** The database's now at this fetch (the now-line); model.now is when the model was last rebuilt. */
  now: number;
  /** The oldest occurrence of the lanes asked for (null: none): fits a young install's default window. */
  historyFrom: number | null;
}

/** Same window and same runs as the previous fetch: nothing to redraw but the now-line. */
function sameTimeline(a: TimelineApi, b: TimelineApi): boolean {
  if (a === b) return true;
  if (a.from !== b.from || a.to !== b.to || a.runs.length !== b.runs.length || a.attempts.length !== b.attempts.length) return false;
  if (
    a.mode !== b.mode ||
    a.buckets.length !== b.buckets.length ||
    a.schedules.map((s) => s.id).join() !== b.schedules.map((s) => s.id).join()
  )
    return false;
  for (let i = 0; i < a.buckets.length; i++) if (a.buckets[i]!.join() !== b.buckets[i]!.join()) return false;
  if (a.startJitterMs.join() !== b.startJitterMs.join()) return false;
  for (let i = 0; i < a.runs.length; i++) {
    const x = a.runs[i]!;
    const y = b.runs[i]!;
    if (x[1] !== y[1] || x[7] !== y[7] || x[2] !== y[2] || x[5] !== y[5] || x[6] !== y[6] || x[0] !== y[0]) return false;
  }
  if (!sameForecast(a.forecast, b.forecast)) return false;
  for (let i = 0; i < a.attempts.length; i++) {
    const x = a.attempts[i]!;
    const y = b.attempts[i]!;
    if (x[0] !== y[0] || x[1] !== y[1] || x[3] !== y[3] || x[4] !== y[4]) return false;
  }
  return true;
}

function sameForecast(a: TimelineApi["forecast"], b: TimelineApi["forecast"]): boolean {
  if (!a || !b) return a === b;
  if (a.from !== b.from || a.mode !== b.mode || a.marks.length !== b.marks.length || a.buckets.length !== b.buckets.length) return false;
  if (a.fates.join() !== b.fates.join() || a.reasons.join("\n") !== b.reasons.join("\n")) return false;
  if (a.cut.join() !== b.cut.join() || a.noWorker.join() !== b.noWorker.join()) return false;
  for (let i = 0; i < a.marks.length; i++) {
    const x = a.marks[i]!;
    const y = b.marks[i]!;
    if (x[0] !== y[0] || x[1] !== y[1] || x[2] !== y[2] || x[3] !== y[3]) return false;
  }
  for (let i = 0; i < a.buckets.length; i++) if (a.buckets[i]!.join() !== b.buckets[i]!.join()) return false;
  return true;
}

/** Each lane's forecast (marks or buckets, its cut and whether a live worker serves it), by lane index. */
function forecastLanes(api: TimelineApi): Partial<Pick<TimelineLane, "forecast" | "forecastBuckets" | "forecastCutAt" | "noWorker">>[] {
  const out = api.schedules.map(() => ({ forecast: [] as ForecastMark[], forecastBuckets: [] as ForecastBucket[] }));
  const f = api.forecast;
  if (!f) return out;
  const { t0 } = api;
  for (const [si, planned, fate, reason, moved] of f.marks) {
    out[si]?.forecast.push({
      plannedAt: t0 + planned,
      nominalAt: t0 + planned + moved,
      fate: f.fates[fate] ?? "run",
      reason: reason < 0 ? null : (f.reasons[reason] ?? null),
    });
  }
  for (const [si, b, ...pairs] of f.buckets) {
    const counts: Record<string, number> = {};
    let total = 0;
    for (let i = 0; i + 1 < pairs.length; i += 2) {
      const fate = f.fates[pairs[i]!] ?? "run";
      counts[fate] = (counts[fate] ?? 0) + pairs[i + 1]!;
      total += pairs[i + 1]!;
    }
    const start = t0 + b! * f.bucketMs;
    out[si!]?.forecastBuckets.push({ start, end: start + f.bucketMs, total, counts });
  }
  const lanes: Partial<Pick<TimelineLane, "forecast" | "forecastBuckets" | "forecastCutAt" | "noWorker">>[] = out;
  for (const [si, at] of f.cut) if (lanes[si]) lanes[si].forecastCutAt = t0 + at;
  for (const [si, handler, pool] of f.noWorker) if (lanes[si]) lanes[si].noWorker = noLiveWorkerText(handler, pool);
  return lanes;
}

const previous = new Map<string, { api: TimelineApi; model: TimelineModel }>();

export function toTimelineModel(api: TimelineApi): TimelineModel {
  const { t0 } = api;
  const now = Date.parse(api.now);
  const at = (off: number | null) => (off === null ? null : t0 + off);
  const laneRuns: TimelineRun[][] = api.schedules.map(() => []);
  const runs: TimelineRun[] = new Array(api.runs.length);
  api.runs.forEach(([si, planned, stateIdx, kindIdx, due, started, finished, id], i) => {
    const state = api.states[stateIdx] ?? "planned";
    const plannedAt = t0 + planned;
    const startedAt = started === null ? null : plannedAt + started;
    const finishedAt = finished === null ? null : plannedAt + finished;
    const run: TimelineRun = {
      runId: id,
      scheduleId: api.schedules[si]?.id ?? "",
      kind: api.kinds[kindIdx] ?? "scheduled",
      state,
      plannedAt,
      dueAt: plannedAt + due,
      startedAt,
      finishedAt,
      latenessMs: started,
      // One attempt is implied by the run's own start and finish; retried runs get theirs below.
      // (a run waiting for its retry has no finish time of its own: its attempt is drawn as a sliver).
      attempts:
        startedAt === null ? [] : [{ number: 1, startedAt, finishedAt: state === "running" ? null : (finishedAt ?? startedAt), state }],
    };
    runs[i] = run;
    laneRuns[si]?.push(run);
  });
  const retried = new Map<number, TimelineRun["attempts"]>();
  for (const [ri, number, started, finished, state] of api.attempts) {
    let list = retried.get(ri);
    if (!list) retried.set(ri, (list = []));
    list.push({ number, startedAt: t0 + started, finishedAt: at(finished), state });
  }
  for (const [ri, attempts] of retried) {
    const run = runs[ri];
    if (run) run.attempts = attempts.sort((a, b) => a.number - b.number);
  }
  const laneBuckets: TimelineBucket[][] = api.schedules.map(() => []);
  for (const [si, b, worst, late, maxLate, ...pairs] of api.buckets) {
    const counts: Record<string, number> = {};
    let total = 0;
    for (let i = 0; i + 1 < pairs.length; i += 2) {
      const state = api.states[pairs[i]!] ?? "planned";
      counts[state] = (counts[state] ?? 0) + pairs[i + 1]!;
      total += pairs[i + 1]!;
    }
    const start = t0 + b! * api.bucketMs;
    laneBuckets[si!]?.push({
      start,
      end: start + api.bucketMs,
      worst: api.states[worst!] ?? "planned",
      total,
      late: late!,
      maxLatenessMs: maxLate! < 0 ? null : maxLate!,
      counts,
    });
  }
  const future = forecastLanes(api);
  const lanes = api.schedules.map((s, i) =>
    finishLane(s.id, s.name, laneRuns[i]!, now, s.paused, api.startJitterMs[i] ?? 0, laneBuckets[i]!, future[i]),
  );
  return {
    from: Date.parse(api.from),
    to: Date.parse(api.to),
    now,
    lanes,
    mode: api.mode,
    bucketMs: api.bucketMs,
    laneOffset: api.lanes.offset,
    laneTotal: api.lanes.total,
    ...(api.forecast ? { forecastFrom: Date.parse(api.forecast.from) } : {}),
    edges: (api.edges ?? []).map(([fromLane, up, toLane, down]) => ({ fromLane, fromAt: t0 + up, toLane, toAt: t0 + down })),
  };
}

/** The id of a run on the timeline: sent for manual and backfill runs, looked up for scheduled ones. */
export async function timelineRunId(run: TimelineRun): Promise<string> {
  if (run.runId) return run.runId;
  const p = new URLSearchParams({ scheduleId: run.scheduleId, plannedAt: String(run.plannedAt) });
  return (await fetchJson<{ id: string }>(`/api/runs/occurrence?${p}`)).id;
}

export const timelineQuery = (w: TimelineWindow, lanes: TimelineLaneView) =>
  queryOptions({
    queryKey: ["timeline", windowKey(w), lanes],
    queryFn: async (): Promise<TimelineData> => {
      // A relative window is resolved at fetch time so every refresh slides with the clock (in ~1 px steps);
      // within a step an unchanged window answers 304 and costs the server one cheap read.
      const api = await fetchJsonConditional<TimelineApi>(timelineUrl(snappedWindow(w, Date.now()), lanes));
      const cacheKey = `${windowKey(w)}|${JSON.stringify(lanes)}`;
      const prev = previous.get(cacheKey);
      // Polling every 2 s must not redraw 20k marks when nothing changed: keep the same model object.
      const start = performance.now();
      const model = prev && sameTimeline(prev.api, api) ? prev.model : toTimelineModel(api);
      performance.measure("vigil:timeline-model", { start });
      previous.set(cacheKey, { api, model });
      // The now-line moves in the same ~1 px steps, so an unchanged poll re-renders nothing at all.
      return { model, now: snapToStep(w, Date.parse(api.now)), historyFrom: api.historyFrom === null ? null : Date.parse(api.historyFrom) };
    },
    // The model is rebuilt or reused whole (above); a deep structural comparison would only cost time.
    structuralSharing: false,
    refetchInterval: w.kind === "relative" || w.to > Date.now() ? livePoll(2000) : false,
  });
