// Public: starts a single sign-on. Remembers the flow (state, nonce, PKCE verifier) and sends the browser
// to the identity provider; the provider sends it back to ../callback.
import { z } from "zod";
import { apiRoute, publicOrigin } from "../../../_lib/api-route";
import { getPool } from "@/core/db/pool";
import { startOidcLogin } from "@/core/auth/oidc/start-oidc-login";
import { safeNextPath } from "@/core/http/safe-next-path";
import { seeOther, setOidcFlowCookie } from "../oidc-cookie";
import { redirectToLoginWithError } from "../sso-redirects";

export const dynamic = "force-dynamic";

const query = z.object({ next: z.string().max(2048).optional() });

export const GET = apiRoute(
  {
    access: "public",
    summary: "Start single sign-on: redirects (303) to the identity provider.",
    answer: z.unknown().describe("303 See Other to the identity provider"),
    answerMedia: "text/html",
    query,
  },
  async ({ req, query }) => {
    const next = safeNextPath(query.next);
    try {
      const { flowId, authorizationUrl } = await startOidcLogin(getPool(), publicOrigin(req), next);
      const res = seeOther(authorizationUrl.href);
      setOidcFlowCookie(res, req, flowId);
      return res;
    } catch (err) {
      return redirectToLoginWithError(err, next);
    }
  },
);
