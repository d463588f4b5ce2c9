// DELETE /api/auth/sessions/:id   (any signed-in user) → { id } — ends one of the caller's own sessions (the id from
//   GET /api/auth/sessions); audited as session.revoke. 404 for a session that is not the caller's.
import { z } from "zod";
import { apiRoute } from "../../../_lib/api-route";
import { revokeOwnSession, SESSION_PUBLIC_ID_LENGTH } from "@/core/auth/user-sessions";
import { ForbiddenError } from "@/core/errors";

export const dynamic = "force-dynamic";

const params = z.object({ id: z.string().regex(new RegExp(`^[0-9a-f]{${SESSION_PUBLIC_ID_LENGTH}}$`)) });

export const DELETE = apiRoute(
  {
    access: "viewer",
    scope: "any",
    summary: "End one of the caller's own console sessions.",
    answer: z.object({ id: z.string() }),
    params,
  },
  async ({ params, actor }) => {
    if (actor.type !== "user") throw new ForbiddenError("API tokens have no sessions to end.");
    return revokeOwnSession(actor, params.id);
  },
);
