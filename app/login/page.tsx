import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { LoginForm } from "@/components/admin/login-form";
import { signInOptions } from "@/core/auth/oidc/oidc-settings";
import { isOidcErrorCode, oidcErrorMessage } from "@/core/auth/oidc/oidc-login-error";
import { safeNextPath } from "@/core/http/safe-next-path";
import { isPasswordLoginErrorCode, passwordLoginErrorMessage } from "@/core/auth/password-login-error";

export const metadata: Metadata = { title: "Sign in · Vigil" };

export default async function LoginPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const params = await searchParams;
  const { next: rawNext, sso_error: rawError } = params;
  const next = safeNextPath(rawNext);
  // A sign-in form submitted by GET (an old page, a hand-made link) put credentials in this URL: nothing reads
  // them, and the browser is sent on at once to the same page without them, so they leave the address bar.
  if (params.email !== undefined || params.password !== undefined) {
    redirect(next === "/" ? "/login" : `/login?${new URLSearchParams({ next })}`);
  }
  const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);
  const loginCode = first(params.login_error);
  const retryAfter = /^\d{1,6}$/.test(first(params.retry_after) ?? "") ? Number(first(params.retry_after)) : null;
  const loginError = isPasswordLoginErrorCode(loginCode) ? passwordLoginErrorMessage(loginCode, retryAfter) : null;
  const { sso, localLogin } = signInOptions();
  // Only known codes are shown, as Vigil's own sentences: nothing in the URL becomes text on the page.
  const code = Array.isArray(rawError) ? rawError[0] : rawError;
  const ssoError = isOidcErrorCode(code) ? oidcErrorMessage(code, sso?.name ?? "single sign-on") : null;
  const ssoHref = `/api/auth/oidc/login${next === "/" ? "" : `?${new URLSearchParams({ next })}`}`;
  return (
    <section className="sign-in">
      <h1>Sign in to Vigil</h1>
      <p className="muted">
        {sso
          ? `Use your ${sso.name} account${localLogin ? ", or the password an admin gave you" : ""}. Automation uses API tokens instead.`
          : "Use the account an admin gave you. Automation uses API tokens instead."}
      </p>
      {ssoError && (
        <p className="sign-in-error" role="alert" data-testid="sso-error">
          {ssoError}
        </p>
      )}
      {sso && (
        <div className="card sign-in-sso">
          {/* A link, not a form: the provider's page is a full navigation, and the browser keeps the flow cookie. */}
          <a className="button primary-link" href={ssoHref} data-testid="sso-login">
            Sign in with {sso.name}
          </a>
        </div>
      )}
      {sso && localLogin && (
        <p className="sign-in-divider muted" aria-hidden="true">
          <span>or with a password</span>
        </p>
      )}
      {localLogin ? (
        <LoginForm next={next} primary={!sso} initialError={loginError} />
      ) : (
        <p className="muted" data-testid="local-login-off">
          Password sign-in is switched off on this console.
        </p>
      )}
    </section>
  );
}
