// GET /api/overview[?team=<id>] → what needs attention, for the header indicator (?team: one of the caller's teams).
// Response: RunsOverview (core/runs/read/overview.ts; dates as ISO strings). Conditional: 304 to a current ETag.
import { z } from "zod";
import { iso } from "@/app/api/_lib/contract/answer-shapes";
import { accessVariant, narrowTeams, visibleTeamIds } from "@/core/teams/team-access";
import { apiRoute } from "../_lib/api-route";
import { conditionalJson } from "../_lib/conditional-json";
import { getPool } from "@/core/db/pool";
import { getRunsOverview } from "@/core/runs/read/overview";
import { ATTENTION_WINDOW_MINUTES } from "@/core/console/clock-boundaries";

export const dynamic = "force-dynamic";

export const GET = apiRoute(
  {
    access: "viewer",
    scope: "schedules:read",
    summary: "What needs attention: counts of the last hour, running and queued runs.",
    answer: z.looseObject({ now: iso, windowMinutes: z.number(), running: z.number(), queued: z.number() }),
    query: z.object({ team: z.uuid({ error: "team must be a team id" }).optional() }),
  },
  async ({ req, actor, query }) =>
    conditionalJson(
      req,
      `overview-${accessVariant(actor)}${query.team ? `-${query.team}` : ""}`,
      () => getRunsOverview(getPool(), ATTENTION_WINDOW_MINUTES, narrowTeams(visibleTeamIds(actor), query.team)),
      {
        clock: "attention",
      },
    ),
);
