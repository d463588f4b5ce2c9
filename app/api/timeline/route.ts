// GET /api/timeline?from=&to=&scheduleId=   (viewer) from/to: ISO (default: the last hour and the next 10 minutes,
//   by the database clock); at most 7 days.
//   → { from, to, now (ISO), t0 (epoch ms), states: string[], kinds: string[],
//       schedules: [{ id, name, paused }], startJitterMs: number[] (by schedule index),
//       runs: [[scheduleIndex, planned, stateIndex, kindIndex, due, started|null, finished|null, runId|null]],
//       attempts: [[runIndex, number, startedAt, finishedAt|null, state]] (only runs with more than one attempt),
//       truncated: boolean (more than 60,000 runs in the window: zoom in) }
//   planned and attempt times are millisecond offsets from t0; due/started/finished are milliseconds after the
//   run's planned time (started is its lateness); stateIndex/kindIndex index `states`/`kinds`. runId is null for
//   scheduled runs (unique by schedule and planned time: GET /api/runs/occurrence finds one).
//   Compact on purpose: 50 schedules × 6 h at one fire a minute is 18,000 runs.
import { z } from "zod";
import { apiRoute } from "../_lib/api-route";
import { dbNow } from "@/core/db/pool";
import { getTimeline } from "@/core/runs/read/timeline";

export const dynamic = "force-dynamic";

const isoDate = (name: string) =>
  z.iso.datetime({ offset: true, error: `${name} must be an ISO 8601 date-time with an offset` }).transform((s) => new Date(s));

export const GET = apiRoute(
  {
    access: "viewer",
    query: z.object({
      from: isoDate("from").optional(),
      to: isoDate("to").optional(),
      scheduleId: z.uuid({ error: "scheduleId must be a schedule id (UUID)" }).optional(),
    }),
  },
  async ({ query }) => {
    const now = query.from && query.to ? null : await dbNow();
    const to = query.to ?? new Date(now!.getTime() + 10 * 60_000);
    const from = query.from ?? new Date(to.getTime() - 70 * 60_000);
    return getTimeline({ from, to, scheduleId: query.scheduleId });
  },
);
