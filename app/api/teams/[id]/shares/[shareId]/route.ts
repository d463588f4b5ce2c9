// DELETE /api/teams/:id/shares/:shareId   (the team's admin, or the global admin) → { share }: revokes the share
//   (audited team.unshare). Schedules saved from then on may no longer refer to the object.
import { z } from "zod";
import { apiRoute } from "../../../../_lib/api-route";
import { revokeTeamShare } from "@/core/teams/team-shares";
import { shareAnswer } from "@/core/teams/team-share-answer";

export const dynamic = "force-dynamic";

export const DELETE = apiRoute(
  {
    access: "operator",
    scope: "admin",
    object: { kind: "team", param: "id", need: "admin" },
    params: z.object({ id: z.uuid(), shareId: z.uuid() }),
    summary: "Revoke one of the team's shares (its admin; audited).",
    answer: z.object({ share: shareAnswer }),
  },
  async ({ params, actor }) => ({ share: await revokeTeamShare(params.id, params.shareId, actor) }),
);
