// GET /api/load-forecast?window=24h|7d&by=fleet|group|tag&key=<group or tag>[&team=<id>]   (viewer; ?team: one of the
//   caller's teams, the header's team switcher: the groups, bursts and group options keep to that team)
//   → { window, by, key, from, until, schedules, curve: { pointMinutes, points: [{ at, due, peak }], total, peak },
//       groups: [{ name, limit, startRateLimit, schedules, due, peakPerMinute, bunchedMinutes, worstLatenessMs,
//       durationsMeasured }], bursts: [{ group, at, due, limit, lastStartLatenessMs, meanDurationMs }],
//       options: { groups, tags }, plans } — core/load/load-forecast.ts. 400 invalid_query naming the field.
//   ETag: a hash of the answer (If-None-Match → 304 without a body). Server-Timing: check (the inputs' fingerprint),
//   read (the schedules whose rows changed: desc says how many), durations, plan, compute.
import { assertObjectAccess } from "@/core/teams/object-team";
import { narrowTeams, visibleTeamIds } from "@/core/teams/team-access";
import { z } from "zod";
import type { Queryable } from "@/core/db/pool";
import { apiRoute } from "../_lib/api-route";
import { hashedJson } from "../_lib/conditional-json";
import { getPool } from "@/core/db/pool";
import {
  getLoadForecast,
  loadForecastSchema,
  loadScopeFields,
  refineLoadScope,
  type LoadForecast,
  type LoadTiming,
} from "@/core/load/load-forecast";

async function onlyVisibleGroups(db: Queryable, teamIds: string[] | null, a: LoadForecast): Promise<LoadForecast> {
  if (teamIds === null) return a;
  const { rows } = await db.query<{ name: string }>(`SELECT name FROM concurrency_groups WHERE team_id = ANY($1::uuid[])`, [teamIds]);
  const mine = new Set(rows.map((r) => r.name));
  return {
    ...a,
    groups: a.groups.filter((g) => mine.has(g.name)),
    bursts: a.bursts.filter((b) => mine.has(b.group)),
    options: { ...a.options, groups: a.options.groups.filter((g) => mine.has(g)) },
  };
}

export const dynamic = "force-dynamic";

export const GET = apiRoute(
  {
    access: "viewer",
    scope: "schedules:read",
    query: z.object({ ...loadScopeFields, team: z.uuid({ error: "team must be a team id" }).optional() }).superRefine(refineLoadScope),
    summary: "Due runs per minute over the next 24 hours or 7 days (fleet, group or tag), with the bursts a group limit delays",
    answer: loadForecastSchema,
  },
  async ({ req, query: { team, ...query }, actor }) => {
    const t = {} as LoadTiming;
    if (query.by === "group" && query.key) await assertObjectAccess(getPool(), actor, "concurrency_group", query.key, "viewer");
    // The curve counts the whole fleet (the workers are shared); the groups it names are the caller's teams' only.
    const answer = await onlyVisibleGroups(getPool(), narrowTeams(visibleTeamIds(actor), team), await getLoadForecast(getPool(), query, t));
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
