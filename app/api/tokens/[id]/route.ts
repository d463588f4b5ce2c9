import { z } from "zod";
import { apiRoute } from "../../_lib/api-route";
import { revokeApiToken } from "@/core/auth/revoke-api-token";

export const dynamic = "force-dynamic";

export const DELETE = apiRoute({ access: "admin", params: z.object({ id: z.uuid() }) }, async ({ params, actor }) => ({
  token: await revokeApiToken(params.id, actor),
}));
