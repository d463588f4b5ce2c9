// Public: exchanges an email and password for a session cookie. Throttled and audited in core/auth/login.
import { apiRoute, clientInfo, isHttps, jsonResponse } from "../../_lib/api-route";
import { getEnv } from "@/core/env";
import { getLogger } from "@/core/log";
import { SESSION_COOKIE } from "@/core/auth/authenticate";
import { ensureFirstAdminOnce } from "@/core/auth/ensure-first-admin";
import { login, loginSchema } from "@/core/auth/login";
import { sessionCookieOptions } from "@/core/auth/sessions";

export const dynamic = "force-dynamic";

export const POST = apiRoute({ access: "public", body: loginSchema }, async ({ req, body }) => {
  // A console started without `npm start` (plain `next start`, another host) still gets its first admin.
  await ensureFirstAdminOnce().catch((err) => getLogger().error({ err }, "could not create the first admin from VIGIL_ADMIN_EMAIL"));
  const { user, session } = await login(body, clientInfo(req));
  const res = jsonResponse(
    { user: { id: user.id, email: user.email, name: user.name, role: user.role }, expiresAt: session.expiresAt },
    200,
    {
      "cache-control": "no-store",
    },
  );
  res.cookies.set(SESSION_COOKIE, session.token, sessionCookieOptions(getEnv().VIGIL_SECURE_COOKIES || isHttps(req)));
  return res;
});
