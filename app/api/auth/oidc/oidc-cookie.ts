// The browser's half of a single sign-on in progress: the random id of its flow row, for 10 minutes,
// sent only to the OIDC routes. SameSite=Lax: the provider's redirect back is a top-level GET, which carries it.
import { NextResponse, type NextRequest } from "next/server";
import { getEnv } from "@/core/env";
import { OIDC_FLOW_TTL_SECONDS } from "@/core/auth/oidc/start-oidc-login";
import { isHttps } from "../../_lib/api-route";

export const OIDC_FLOW_COOKIE = "vigil_oidc_flow";
const PATH = "/api/auth/oidc";

export function setOidcFlowCookie(res: NextResponse, req: NextRequest, flowId: string): void {
  res.cookies.set(OIDC_FLOW_COOKIE, flowId, {
    httpOnly: true,
    sameSite: "lax",
    secure: getEnv().VIGIL_SECURE_COOKIES || isHttps(req),
    path: PATH,
    maxAge: OIDC_FLOW_TTL_SECONDS,
  });
}

export function clearOidcFlowCookie(res: NextResponse): void {
  res.cookies.set(OIDC_FLOW_COOKIE, "", { httpOnly: true, sameSite: "lax", path: PATH, maxAge: 0 });
}

/** A relative redirect: the browser resolves it against the address it used, whatever proxies stand between. */
export function seeOther(location: string): NextResponse {
  return new NextResponse(null, { status: 303, headers: { location, "cache-control": "no-store" } });
}
