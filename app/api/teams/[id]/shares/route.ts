// GET  /api/teams/:id/shares   (a member of the team, or the global admin) → { team, given, received, targets }: what the
//      team shares, what other teams share with it, and (for its admins) the teams a share may go to.
// POST /api/teams/:id/shares   (the team's admin, or the global admin) body: { kind, object, withTeam: name|id|null }
//      → { share } (audited team.share); 422 unknown_object / not_your_team / unknown_team / own_team, 409 already_shared.
import { z } from "zod";
import { apiRoute } from "../../../_lib/api-route";
import { getPool } from "@/core/db/pool";
import { listTeamShares, shareInputSchema, shareTeamObject } from "@/core/teams/team-shares";
import { shareAnswer } from "@/core/teams/team-share-answer";

export const dynamic = "force-dynamic";

const params = z.object({ id: z.uuid() });

export const GET = apiRoute(
  {
    access: "viewer",
    scope: "schedules:read",
    object: { kind: "team", param: "id", need: "audit" },
    params,
    summary: "A team's shares: what it shares with other teams and what they share with it.",
    answer: z.object({
      team: z.string(),
      given: z.array(shareAnswer),
      received: z.array(shareAnswer),
      targets: z.array(z.object({ id: z.string(), name: z.string() })),
    }),
  },
  async ({ params, actor }) => listTeamShares(getPool(), params.id, actor),
);

export const POST = apiRoute(
  {
    access: "operator",
    scope: "admin",
    object: { kind: "team", param: "id", need: "admin" },
    params,
    body: shareInputSchema,
    summary: "Share a calendar, secret or concurrency group of the team with another team or every team (its admin; audited).",
    answer: z.object({ share: shareAnswer }),
    errors: ["unknown_object", "not_your_team", "unknown_team", "own_team", "already_shared"],
  },
  async ({ params, body, actor }) => ({ share: await shareTeamObject(params.id, body, actor) }),
);
