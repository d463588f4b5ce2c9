// DELETE /api/users/:id/sessions   (admin) → { ended } — signs the user out everywhere; audited as user.sessions_end.
import { z } from "zod";
import { apiRoute } from "../../../_lib/api-route";
import { endUserSessions } from "@/core/auth/user-sessions";

export const dynamic = "force-dynamic";

export const DELETE = apiRoute(
  {
    access: "admin",
    scope: "admin",
    summary: "Sign a user out everywhere (audited).",
    answer: z.object({ ended: z.number() }),
    params: z.object({ id: z.uuid() }),
  },
  async ({ params, actor }) => endUserSessions(params.id, actor),
);
