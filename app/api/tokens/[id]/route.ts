import { tokenItem } from "@/app/api/_lib/contract/answer-shapes";
import { z } from "zod";
import { apiRoute } from "../../_lib/api-route";
import { revokeApiToken } from "@/core/auth/revoke-api-token";

export const dynamic = "force-dynamic";

export const DELETE = apiRoute(
  {
    access: "admin",
    scope: "admin",
    summary: "Revoke an API token (audited).",
    answer: z.object({ token: tokenItem }),
    params: z.object({ id: z.uuid() }),
  },
  async ({ params, actor }) => ({
    token: await revokeApiToken(params.id, actor),
  }),
);
