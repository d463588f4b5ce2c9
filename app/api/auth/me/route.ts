// Who the caller is: the header's user menu and the admin page read this.
import { z } from "zod";
import { apiRoute } from "../../_lib/api-route";
import { actorMayRunPrograms } from "@/core/auth/roles";

export const dynamic = "force-dynamic";

export const GET = apiRoute(
  {
    access: "viewer",
    scope: "any",
    summary: "Who the caller is: user or API token, role.",
    answer: z.object({
      actor: z.object({ type: z.string(), id: z.string().nullable(), label: z.string(), role: z.string(), mayRunPrograms: z.boolean() }),
    }),
  },
  async ({ actor }) => ({
    actor: { type: actor.type, id: actor.id, label: actor.label, role: actor.role, mayRunPrograms: actorMayRunPrograms(actor) },
  }),
);
