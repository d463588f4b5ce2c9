// Public: exchanges an email and password for a session cookie. Throttled and audited in core/auth/login.
//   JSON body { email, password } → 200 JSON and the cookie (the console's script, automation).
//   Form body (application/x-www-form-urlencoded: email, password, next) → 303 redirect (form-login.ts): the
//   sign-in form works without JavaScript, by POST, with no credential in any URL. There is no GET: a query
//   string is never read as a sign-in.
import { z } from "zod";
import { iso } from "@/app/api/_lib/contract/answer-shapes";
import type { NextRequest } from "next/server";
import { apiRoute, clientInfo, isHttps, jsonResponse } from "../../_lib/api-route";
import { getEnv } from "@/core/env";
import { getLogger } from "@/core/log";
import { SESSION_COOKIE } from "@/core/auth/authenticate";
import { ensureFirstAdminOnce } from "@/core/auth/ensure-first-admin";
import { login, loginSchema } from "@/core/auth/login";
import { sessionCookieOptions } from "@/core/auth/sessions";
import { isFormPost, signInFromForm } from "./form-login";

export const dynamic = "force-dynamic";

// A console started without `npm start` (plain `next start`, another host) still gets its first admin.
const firstAdmin = () =>
  ensureFirstAdminOnce().catch((err) => getLogger().error({ err }, "could not create the first admin from VIGIL_ADMIN_EMAIL"));

const jsonLogin = apiRoute(
  {
    access: "public",
    summary: "Sign in with email and password: a session cookie and who you are.",
    answer: z.object({ user: z.object({ id: z.string(), email: z.string(), name: z.string(), role: z.string() }), expiresAt: iso }),
    body: loginSchema,
  },
  async ({ req, body }) => {
    await firstAdmin();
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
  },
);

const formLogin = apiRoute(
  {
    access: "public",
    summary: "Sign in from the HTML form (303 redirect).",
    answer: z.unknown().describe("303 See Other to the console"),
    answerMedia: "text/html",
  },
  async ({ req }) => {
    await firstAdmin();
    return signInFromForm(req);
  },
);

// The contract describes the JSON sign-in; the form's is the browser's fallback.
export const POST = Object.assign(
  (req: NextRequest, ctx: { params: Promise<Record<string, string>> }) => (isFormPost(req) ? formLogin(req, ctx) : jsonLogin(req, ctx)),
  { spec: jsonLogin.spec },
);
