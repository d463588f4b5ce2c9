// Who the caller is: the header's user menu and the admin page read this.
import { apiRoute } from "../../_lib/api-route";
import { actorMayRunPrograms } from "@/core/auth/roles";

export const dynamic = "force-dynamic";

export const GET = apiRoute({ access: "viewer" }, async ({ actor }) => ({
  actor: { type: actor.type, id: actor.id, label: actor.label, role: actor.role, mayRunPrograms: actorMayRunPrograms(actor) },
}));
