// The sign-in form posted without JavaScript (before the page hydrates, or with scripts off): an
// application/x-www-form-urlencoded body of email, password and next. It signs in exactly like the JSON path
// (throttle, audit, session) and answers the browser with a 303 redirect: to `next` with the session cookie, or
// back to /login?login_error=<code> — never with the email or password in a URL. The same-origin check is the
// strict one of a cookie-authenticated change (Origin or Referer must name this console: a browser's form post
// sends Origin), so another site cannot sign a visitor in to an account of its choosing.
import { NextResponse, type NextRequest } from "next/server";
import { clientInfo, isHttps, refuseCrossOrigin } from "../../_lib/api-route";
import { getEnv } from "@/core/env";
import { getLogger } from "@/core/log";
import { SESSION_COOKIE } from "@/core/auth/authenticate";
import { login, loginSchema } from "@/core/auth/login";
import { passwordLoginErrorCode } from "@/core/auth/password-login-error";
import { sessionCookieOptions } from "@/core/auth/sessions";
import { BadRequestError, DomainError, TooManyRequestsError, isDatabaseUnavailable } from "@/core/errors";
import { safeNextPath } from "@/core/http/safe-next-path";

const FORM_TYPE = "application/x-www-form-urlencoded";
/** Two fields of at most 254 and 256 characters and a path: far below this. */
const MAX_FORM_BYTES = 16 * 1024;

export function isFormPost(req: NextRequest): boolean {
  return (req.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase() === FORM_TYPE;
}

/** A redirect the browser follows with GET (303), to a path on this console. */
function seeOther(path: string): NextResponse {
  return new NextResponse(null, { status: 303, headers: { location: path, "cache-control": "no-store" } });
}

async function readForm(req: NextRequest): Promise<URLSearchParams> {
  if (Number(req.headers.get("content-length") ?? 0) > MAX_FORM_BYTES)
    throw new BadRequestError("The form is too large.", "body_too_large");
  const text = await req.text();
  if (Buffer.byteLength(text) > MAX_FORM_BYTES) throw new BadRequestError("The form is too large.", "body_too_large");
  return new URLSearchParams(text);
}

export async function signInFromForm(req: NextRequest): Promise<NextResponse> {
  refuseCrossOrigin(req, true);
  const form = await readForm(req);
  const next = safeNextPath(form.get("next"));
  const back = (code: string, extra: Record<string, string> = {}) =>
    seeOther(`/login?${new URLSearchParams({ login_error: code, ...extra, ...(next === "/" ? {} : { next }) })}`);
  const parsed = loginSchema.safeParse({ email: form.get("email") ?? "", password: form.get("password") ?? "" });
  if (!parsed.success) return back("invalid_input");
  try {
    const { session } = await login(parsed.data, clientInfo(req));
    const res = seeOther(next);
    res.cookies.set(SESSION_COOKIE, session.token, sessionCookieOptions(getEnv().VIGIL_SECURE_COOKIES || isHttps(req)));
    return res;
  } catch (err) {
    if (err instanceof TooManyRequestsError) {
      return back("rate_limited", { retry_after: String(Math.max(1, Math.ceil(err.retryAfterSeconds))) });
    }
    if (err instanceof DomainError) return back(passwordLoginErrorCode(err));
    if (isDatabaseUnavailable(err)) return back("unavailable");
    getLogger().error({ err, path: "/api/auth/login" }, "form sign-in failed");
    return back("failed");
  }
}
