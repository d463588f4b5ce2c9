// Sends visitors without a session cookie to the sign-in page before any console page renders.
// Only a presence check: the cookie is verified against the sessions table by every API call
// (app/api/_lib/api-route.ts), and an expired one lands the browser back here via a 401.
import { NextResponse, type NextRequest } from "next/server";

const SESSION_COOKIE = "vigil_session";

export function proxy(req: NextRequest) {
  if (req.cookies.get(SESSION_COOKIE)?.value) return NextResponse.next();
  const login = req.nextUrl.clone();
  login.pathname = "/login";
  login.search = "";
  const next = req.nextUrl.pathname + req.nextUrl.search;
  if (next !== "/") login.searchParams.set("next", next);
  return NextResponse.redirect(login);
}

export const config = {
  // Pages only: the API answers 401 JSON itself; static assets and the sign-in page stay reachable.
  matcher: ["/((?!api/|_next/static|_next/image|favicon\\.ico|login|robots\\.txt).*)"],
};
