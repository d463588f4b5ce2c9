// GET  /api/teams   (viewer) → { teams: [{ id, name, description, yourRole, members (team admins only), createdAt }] }:
//      the caller's teams, every team for the global admin (core/teams/team-store.ts).
// POST /api/teams   (admin: the global admin) body: { name, description? } → { team } (audited team.create); 409 name_taken.
import { z } from "zod";
import { apiRoute } from "../_lib/api-route";
import { iso } from "../_lib/contract/answer-shapes";
import { getPool } from "@/core/db/pool";
import { createTeam, listTeams, teamInputSchema } from "@/core/teams/team-store";

export const dynamic = "force-dynamic";

const member = z.object({ userId: z.string(), email: z.string(), role: z.string(), source: z.string() });

export const GET = apiRoute(
  {
    access: "viewer",
    scope: "any",
    summary: "The caller's teams with its role in each (every team for the global admin); members for a team's admins.",
    answer: z.object({
      teams: z.array(
        z.object({
          id: z.string(),
          name: z.string(),
          description: z.string(),
          yourRole: z.string(),
          members: z.array(member).nullable(),
          createdAt: iso,
        }),
      ),
    }),
  },
  async ({ actor }) => ({ teams: await listTeams(getPool(), actor) }),
);

export const POST = apiRoute(
  {
    access: "admin",
    scope: "admin",
    summary: "Create a team (global admin; audited).",
    answer: z.object({ team: z.object({ id: z.string(), name: z.string(), description: z.string() }) }),
    errors: ["name_taken"],
    body: teamInputSchema,
  },
  async ({ body, actor }) => ({ team: await createTeam(body, actor) }),
);
