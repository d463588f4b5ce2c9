// GET /api/secrets[?team=<id>]   (a team's admin; ?team: one of its teams, the header's team switcher) → { secrets: [{ name, team, createdAt, createdBy, updatedAt, updatedBy, usedBy: [schedule names] }] }
// The secrets of the teams where the caller is admin (every team's for the global admin): who manages them sees them.
// Names and metadata only: no answer of the API ever carries a secret's value (only workers decrypt).
import { z } from "zod";
import { narrowTeams, visibleTeamIds } from "@/core/teams/team-access";
import { ForbiddenError } from "@/core/errors";
import { secretItem } from "@/app/api/_lib/contract/answer-shapes";
import { apiRoute } from "../_lib/api-route";
import { getPool } from "@/core/db/pool";
import { listSecrets } from "@/core/secrets/secret-store";

export const dynamic = "force-dynamic";

export const GET = apiRoute(
  {
    // A team admin's route role is operator (core/teams/team-access.ts routeRoleOf); the list keeps to its admin teams.
    access: "operator",
    scope: "secrets:write",
    summary: "Secret names and metadata (never values).",
    answer: z.object({ secrets: z.array(secretItem) }),
    query: z.object({ team: z.uuid({ error: "team must be a team id" }).optional() }),
  },
  async ({ query, actor }) => {
    const teams = visibleTeamIds(actor, "admin");
    if (teams !== null && teams.length === 0) throw new ForbiddenError("Secrets are managed by a team's admins; you are admin of no team.");
    return { secrets: await listSecrets(getPool(), narrowTeams(teams, query.team)) };
  },
);
