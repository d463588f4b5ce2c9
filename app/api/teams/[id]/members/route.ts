// PUT /api/teams/:id/members   (a team admin, or the global admin) body: { email, role: viewer|operator|admin|auditor|null }
//   → { team, members } — sets the user's role in the team, or removes it with null (audited team.member_set /
//   team.member_remove). 404 for a team the caller has no role in; 403 for a member who is not its admin.
import { z } from "zod";
import { apiRoute } from "../../../_lib/api-route";
import { memberInputSchema, setTeamMember } from "@/core/teams/team-store";

export const dynamic = "force-dynamic";

export const PUT = apiRoute(
  {
    access: "operator",
    scope: "admin",
    object: { kind: "team", param: "id", need: "admin" },
    summary: "Set or remove a member's role in a team (its admin or the global admin; audited).",
    answer: z.object({
      team: z.string(),
      members: z.array(z.object({ userId: z.string(), email: z.string(), role: z.string(), source: z.string() })),
    }),
    params: z.object({ id: z.uuid() }),
    body: memberInputSchema,
  },
  async ({ params, body, actor }) => setTeamMember(params.id, body, actor),
);
