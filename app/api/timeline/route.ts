// GET /api/timeline?from=&to=&scheduleId=&width=&laneOffset=&laneLimit=&sort=&q=&handler=&tag=&trouble=   (viewer)
//   from/to: ISO (default: the last hour and the next 10 minutes, by the database clock); at most 7 days.
//   width: the chart's plot width in px (default 1200): sizes the summary. Lanes: laneOffset (0) / laneLimit (1..200,
//   default 50) page through the schedules; sort=name|trouble (most late/missed/hollow/failed in the window first);
//   q (part of the name or handler), handler (exact), tag, trouble=any|late|missed|hollow|failed narrow them.
//   → { from, to, now (ISO), t0 (epoch ms), states: string[], kinds: string[],
//       schedules: [{ id, name, paused }] (this page of lanes), startJitterMs: number[] (by lane index),
//       lanes: { total, offset }, mode: "runs" | "summary",
//       runs: [[laneIndex, planned, stateIndex, kindIndex, due, started|null, finished|null, runId|null]],
//       attempts: [[runIndex, number, startedAt, finishedAt|null, state]] (only runs with more than one attempt),
//       bucketMs, buckets: [[laneIndex, bucketIndex, worstStateIndex, late, maxLatenessMs (−1: none), stateIndex, count, …]] }
//   "summary" when the lanes hold more runs than the width can draw apart (or more than 60,000): every run of the
//   window is counted in a bucket, none is dropped; a narrower window brings back single runs.
//   planned and attempt times are millisecond offsets from t0; due/started/finished are milliseconds after the
//   run's planned time (started is its lateness); stateIndex/kindIndex index `states`/`kinds`. runId is null for
//   scheduled runs (unique by schedule and planned time: GET /api/runs/occurrence finds one).
//   forecast (only when the window reaches past now; core/runs/read/timeline-forecast.ts): the fires the plan
//     computes from now to `to`, less those that already have a row: { from, fates: string[], reasons: string[],
//     mode: "marks" | "summary", marks: [[laneIndex, planned, fateIndex, reasonIndex (−1: none), moved (nominal − planned)]],
//     bucketMs, buckets: [[laneIndex, bucketIndex, fateIndex, count, …]], cut: [[laneIndex, lastPlanned]] (capped lanes),
//     noWorker: [[laneIndex, handler, pool?]] (no live worker of its pool serves it), materialised }. planned is ms after t0 as above.
//   Conditional: answers 304 to an If-None-Match naming its current ETag.
import { iso } from "@/app/api/_lib/contract/answer-shapes";
import { z } from "zod";
import { accessVariant, narrowTeams, visibleTeamIds } from "@/core/teams/team-access";
import { apiRoute } from "../_lib/api-route";
import { conditionalJson } from "../_lib/conditional-json";
import { dbNow, getPool } from "@/core/db/pool";
import { getTimeline } from "@/core/runs/read/timeline";
import { MAX_TIMELINE_LANES, TIMELINE_LANE_SORTS, TIMELINE_TROUBLE_FILTERS } from "@/core/runs/read/timeline-lanes";

export const dynamic = "force-dynamic";

const isoDate = (name: string) =>
  z.iso.datetime({ offset: true, error: `${name} must be an ISO 8601 date-time with an offset` }).transform((s) => new Date(s));

export const GET = apiRoute(
  {
    access: "viewer",
    scope: "schedules:read",
    summary: "The timeline: runs or per-bucket summaries of a window, by schedule lane (compact arrays).",
    answer: z.looseObject({
      from: iso,
      to: iso,
      now: iso,
      t0: z.number(),
      mode: z.enum(["runs", "summary"]),
      states: z.array(z.string()),
      schedules: z.array(z.looseObject({ id: z.string(), name: z.string() })),
    }),
    query: z.object({
      from: isoDate("from").optional(),
      to: isoDate("to").optional(),
      scheduleId: z.uuid({ error: "scheduleId must be a schedule id (UUID)" }).optional(),
      width: z.coerce.number().int().min(100).max(8000).optional(),
      laneOffset: z.coerce.number().int().min(0).max(1_000_000).optional(),
      laneLimit: z.coerce.number().int().min(1).max(MAX_TIMELINE_LANES).optional(),
      sort: z.enum(TIMELINE_LANE_SORTS, { error: `sort must be one of ${TIMELINE_LANE_SORTS.join(", ")}` }).optional(),
      q: z.string().max(200).optional(),
      handler: z.string().max(200).optional(),
      tag: z.string().max(100).optional(),
      trouble: z.enum(TIMELINE_TROUBLE_FILTERS, { error: `trouble must be one of ${TIMELINE_TROUBLE_FILTERS.join(", ")}` }).optional(),
      team: z.uuid({ error: "team must be a team id" }).optional(),
    }),
  },
  async ({ req, query, actor }) =>
    conditionalJson(
      req,
      `timeline-${accessVariant(actor)}`,
      async () => {
        const now = query.from && query.to ? null : await dbNow();
        const to = query.to ?? new Date(now!.getTime() + 10 * 60_000);
        const from = query.from ?? new Date(to.getTime() - 70 * 60_000);
        return getTimeline(getPool(), { ...query, from, to, teamIds: narrowTeams(visibleTeamIds(actor), query.team) });
      },
      { clock: "pauses" },
    ),
);
