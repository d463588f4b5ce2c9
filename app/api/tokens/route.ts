import { z } from "zod";
import { tokenItem } from "@/app/api/_lib/contract/answer-shapes";
import { apiRoute } from "../_lib/api-route";
import { getPool } from "@/core/db/pool";
import { createApiToken } from "@/core/auth/create-api-token";
import { listApiTokens } from "@/core/auth/list-api-tokens";
import { createTokenSchema } from "@/core/auth/user-input";

export const dynamic = "force-dynamic";

export const GET = apiRoute(
  { access: "admin", scope: "admin", summary: "API tokens (never their secrets).", answer: z.object({ tokens: z.array(tokenItem) }) },
  async () => ({ tokens: await listApiTokens(getPool()) }),
);

// The secret is in this response and nowhere else, ever.
export const POST = apiRoute(
  {
    access: "admin",
    scope: "admin",
    summary: "Create an API token: its secret is in this answer and nowhere else.",
    answer: z.object({ token: tokenItem, secret: z.string() }),
    body: createTokenSchema,
  },
  async ({ body, actor }) => createApiToken(body, actor),
);
