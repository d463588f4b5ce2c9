// GET /api/load-forecast?window=24h|7d&by=fleet|group|tag&key=<group or tag>   (viewer)
//   → { window, by, key, from, until, schedules, curve: { pointMinutes, points: [{ at, due, peak }], total, peak },
//       groups: [{ name, limit, startRateLimit, schedules, due, peakPerMinute, bunchedMinutes, worstLatenessMs,
//       durationsMeasured }], bursts: [{ group, at, due, limit, lastStartLatenessMs, meanDurationMs }],
//       options: { groups, tags }, plans } — core/load/load-forecast.ts. 400 invalid_query naming the field.
//   ETag: a hash of the answer (If-None-Match → 304 without a body). Server-Timing: check (the inputs' fingerprint),
//   read (the schedules whose rows changed: desc says how many), durations, plan, compute.
import { apiRoute } from "../_lib/api-route";
import { hashedJson } from "../_lib/conditional-json";
import { getPool } from "@/core/db/pool";
import { getLoadForecast, loadForecastSchema, loadScopeSchema, type LoadTiming } from "@/core/load/load-forecast";

export const dynamic = "force-dynamic";

export const GET = apiRoute(
  {
    access: "viewer",
    scope: "schedules:read",
    query: loadScopeSchema,
    summary: "Due runs per minute over the next 24 hours or 7 days (fleet, group or tag), with the bursts a group limit delays",
    answer: loadForecastSchema,
  },
  async ({ req, query }) => {
    const t = {} as LoadTiming;
    const answer = await getLoadForecast(getPool(), query, t);
    const timing = [
      `check;dur=${t.checkMs.toFixed(1)}`,
      `read;desc="${t.reread} rows";dur=${t.readMs.toFixed(1)}`,
      `durations;dur=${t.durationsMs.toFixed(1)}`,
      `plan;dur=${t.planMs.toFixed(1)}`,
      `compute;dur=${t.computeMs.toFixed(1)}`,
    ].join(", ");
    return hashedJson(req, answer, { "server-timing": timing });
  },
);
