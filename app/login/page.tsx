import type { Metadata } from "next";
import { LoginForm } from "@/components/admin/login-form";
import { signInOptions } from "@/core/auth/oidc/oidc-settings";
import { isOidcErrorCode, oidcErrorMessage } from "@/core/auth/oidc/oidc-login-error";
import { safeNextPath } from "@/core/http/safe-next-path";

export const metadata: Metadata = { title: "Sign in · Vigil" };

export default async function LoginPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const { next: rawNext, sso_error: rawError } = await searchParams;
  const next = safeNextPath(rawNext);
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
        <LoginForm next={next} primary={!sso} />
      ) : (
        <p className="muted" data-testid="local-login-off">
          Password sign-in is switched off on this console.
        </p>
      )}
    </section>
  );
}
