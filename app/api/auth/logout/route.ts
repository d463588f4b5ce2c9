// Ends the caller's console session. API tokens have no session to end: an admin revokes them.
import { okAnswer } from "@/app/api/_lib/contract/answer-shapes";
import { apiRoute, isHttps, jsonResponse } from "../../_lib/api-route";
import { getEnv } from "@/core/env";
import { ForbiddenError } from "@/core/errors";
import { SESSION_COOKIE } from "@/core/auth/authenticate";
import { logout } from "@/core/auth/logout";
import { sessionCookieOptions } from "@/core/auth/sessions";

export const dynamic = "force-dynamic";

export const POST = apiRoute(
  { access: "viewer", scope: "any", summary: "End the caller's console session (clears the cookie).", answer: okAnswer },
  async ({ req, actor }) => {
    const cookie = req.cookies.get(SESSION_COOKIE)?.value;
    if (actor.type !== "user" || !cookie) throw new ForbiddenError("API tokens do not sign out; an admin revokes them on the admin page.");
    await logout(cookie, actor);
    const res = jsonResponse({ ok: true }, 200, { "cache-control": "no-store" });
    res.cookies.set(SESSION_COOKIE, "", sessionCookieOptions(getEnv().VIGIL_SECURE_COOKIES || isHttps(req), 0));
    return res;
  },
);
