// GET /api/groups[?team=<id>]   (viewer; ?team: one of the caller's teams, the header's team switcher) → { groups: [{ name, teamId, team, concurrencyLimit, startRateLimit: {maxStarts, perSeconds}|null, running,
//     startsInWindow (null without a rate limit), waitingForSlot, waitingForRate, schedules }] } — core/groups/list-groups.ts.
import { z } from "zod";
import { narrowTeams, visibleTeamIds } from "@/core/teams/team-access";
import { apiRoute } from "../_lib/api-route";
import { getPool } from "@/core/db/pool";
import { listGroups } from "@/core/groups/list-groups";

export const dynamic = "force-dynamic";

export const GET = apiRoute(
  {
    access: "viewer",
    scope: "schedules:read",
    summary: "Concurrency groups with their limits and what runs or waits in each.",
    answer: z.object({
      groups: z.array(
        z.looseObject({
          name: z.string(),
          teamId: z.string(),
          team: z.string(),
          concurrencyLimit: z.number().nullable(),
          running: z.number(),
        }),
      ),
    }),
    query: z.object({ team: z.uuid({ error: "team must be a team id" }).optional() }),
  },
  async ({ query, actor }) => ({ groups: await listGroups(getPool(), narrowTeams(visibleTeamIds(actor), query.team)) }),
);
