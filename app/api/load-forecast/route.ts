// GET /api/load-forecast?window=24h|7d&by=fleet|group|tag&key=<group or tag>   (viewer)
//   → { window, by, key, from, until, schedules, curve: { pointMinutes, points: [{ at, due, peak }], total, peak },
//       groups: [{ name, limit, startRateLimit, schedules, due, peakPerMinute, bunchedMinutes, worstLatenessMs,
//       durationsMeasured }], bursts: [{ group, at, due, limit, lastStartLatenessMs, meanDurationMs }],
//       options: { groups, tags }, plans } — core/load/load-forecast.ts. 400 invalid_query naming the field.
import { apiRoute } from "../_lib/api-route";
import { getPool } from "@/core/db/pool";
import { getLoadForecast, loadForecastSchema, loadScopeSchema } from "@/core/load/load-forecast";

export const dynamic = "force-dynamic";

export const GET = apiRoute(
  {
    access: "viewer",
    query: loadScopeSchema,
    summary: "Due runs per minute over the next 24 hours or 7 days (fleet, group or tag), with the bursts a group limit delays",
    answer: loadForecastSchema,
  },
  async ({ query }) => getLoadForecast(getPool(), query),
);
