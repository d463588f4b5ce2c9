// GET /api/groups   (viewer) → { groups: [{ name, teamId, team, concurrencyLimit, startRateLimit: {maxStarts, perSeconds}|null, running,
//     startsInWindow (null without a rate limit), waitingForSlot, waitingForRate, schedules }] } — core/groups/list-groups.ts.
import { z } from "zod";
import { visibleTeamIds } from "@/core/teams/team-access";
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
  },
  async ({ actor }) => ({ groups: await listGroups(getPool(), visibleTeamIds(actor)) }),
);
