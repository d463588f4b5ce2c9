// Who the caller is: the header's user menu, the admin page and the console's role checks read this. `teams` lists the
// teams it belongs to with its role in each (every team, as admin, for the global admin): the console draws a
// control on an object only when the role in THAT object's team allows it (components/ui/use-can.tsx).
import { z } from "zod";
import { apiRoute } from "../../_lib/api-route";
import { actorMayRunPrograms } from "@/core/auth/roles";
import { getPool } from "@/core/db/pool";
import { listActorTeams } from "@/core/teams/actor-teams";

export const dynamic = "force-dynamic";

export const GET = apiRoute(
  {
    access: "viewer",
    scope: "any",
    summary: "Who the caller is: user or API token, role, and its role in each of its teams.",
    answer: z.object({
      actor: z.object({
        type: z.string(),
        id: z.string().nullable(),
        label: z.string(),
        role: z.string(),
        mayRunPrograms: z.boolean(),
        globalAdmin: z.boolean(),
        teams: z.array(z.object({ id: z.string(), name: z.string(), role: z.string() })),
      }),
    }),
  },
  async ({ actor }) => ({
    actor: {
      type: actor.type,
      id: actor.id,
      label: actor.label,
      role: actor.role,
      mayRunPrograms: actorMayRunPrograms(actor),
      ...(await listActorTeams(getPool(), actor)),
    },
  }),
);
