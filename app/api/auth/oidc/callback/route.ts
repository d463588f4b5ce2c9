// Public: where the identity provider sends the browser back. Finishes the single sign-on (core/auth/oidc)
// and sets Vigil's normal session cookie, or sends the browser to the sign-in page with what went wrong.
import { z } from "zod";
import { apiRoute, clientInfo, isHttps } from "../../../_lib/api-route";
import { getPool } from "@/core/db/pool";
import { getEnv } from "@/core/env";
import { SESSION_COOKIE } from "@/core/auth/authenticate";
import { finishOidcLogin } from "@/core/auth/oidc/finish-oidc-login";
import { sessionCookieOptions } from "@/core/auth/sessions";
import { clearOidcFlowCookie, OIDC_FLOW_COOKIE, seeOther } from "../oidc-cookie";
import { redirectToLoginWithError } from "../sso-redirects";

export const dynamic = "force-dynamic";

export const GET = apiRoute(
  {
    access: "public",
    summary: "Where the identity provider sends the browser back: sets the session, redirects (303).",
    answer: z.unknown().describe("303 See Other to the console or the sign-in page"),
    answerMedia: "text/html",
  },
  async ({ req }) => {
    try {
      const { session, next } = await finishOidcLogin(
        getPool(),
        req.cookies.get(OIDC_FLOW_COOKIE)?.value,
        req.nextUrl.searchParams,
        clientInfo(req),
      );
      const res = seeOther(next);
      clearOidcFlowCookie(res);
      res.cookies.set(SESSION_COOKIE, session.token, sessionCookieOptions(getEnv().VIGIL_SECURE_COOKIES || isHttps(req)));
      return res;
    } catch (err) {
      return redirectToLoginWithError(err);
    }
  },
);
