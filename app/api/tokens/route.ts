import { apiRoute } from "../_lib/api-route";
import { getPool } from "@/core/db/pool";
import { createApiToken } from "@/core/auth/create-api-token";
import { listApiTokens } from "@/core/auth/list-api-tokens";
import { createTokenSchema } from "@/core/auth/user-input";

export const dynamic = "force-dynamic";

export const GET = apiRoute({ access: "admin" }, async () => ({ tokens: await listApiTokens(getPool()) }));

// The secret is in this response and nowhere else, ever.
export const POST = apiRoute({ access: "admin", body: createTokenSchema }, async ({ body, actor }) => createApiToken(body, actor));
