// Where a failed single sign-on sends the browser: back to the sign-in page with a code it explains.
// Nothing from the provider or the URL is shown as text there; an unexpected error is logged, not shown.
import type { NextResponse } from "next/server";
import { isDatabaseUnavailable } from "@/core/errors";
import { getLogger } from "@/core/log";
import { OidcLoginError } from "@/core/auth/oidc/oidc-login-error";
import { clearOidcFlowCookie, seeOther } from "./oidc-cookie";

export function redirectToLoginWithError(err: unknown, next = "/"): NextResponse {
  // The API's rule holds here too: the database being down answers 503 database_unavailable (apiRoute maps it).
  if (isDatabaseUnavailable(err)) throw err;
  if (!(err instanceof OidcLoginError)) getLogger().error({ err }, "single sign-on failed unexpectedly");
  const code = err instanceof OidcLoginError ? err.reason : "failed";
  const params = new URLSearchParams({ sso_error: code });
  if (next !== "/") params.set("next", next);
  const res = seeOther(`/login?${params}`);
  clearOidcFlowCookie(res);
  return res;
}
