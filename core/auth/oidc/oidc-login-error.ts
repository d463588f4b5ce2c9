// Why a single sign-on did not go through. The callback never answers with an error page of its own:
// it sends the browser back to /login?sso_error=<code>, and the sign-in page shows the message for the
// code (only these codes, so nothing a URL carries is ever shown as text).
import { DomainError } from "../../errors";

export const OIDC_ERROR_CODES = [
  "not_configured",
  "access_denied",
  "provider_error",
  "invalid_state",
  "expired",
  "no_role",
  "disabled",
  "no_email",
  "email_taken",
  "unavailable",
  "failed",
] as const;
export type OidcErrorCode = (typeof OIDC_ERROR_CODES)[number];

const STATUS: Record<OidcErrorCode, number> = {
  not_configured: 404,
  access_denied: 401,
  provider_error: 401,
  invalid_state: 400,
  expired: 400,
  no_role: 403,
  disabled: 403,
  no_email: 422,
  email_taken: 409,
  unavailable: 503,
  failed: 401,
};

/** The sentence the sign-in page shows for a code; `provider` is the provider's configured name. */
export function oidcErrorMessage(code: OidcErrorCode, provider: string): string {
  switch (code) {
    case "not_configured":
      return "Single sign-on is not configured on this console.";
    case "access_denied":
      return `Sign-in was cancelled or refused at ${provider}. Try again, or ask an admin if you should have access.`;
    case "provider_error":
      return `${provider} could not complete the sign-in. Try again in a moment.`;
    case "invalid_state":
      return "This sign-in could not be verified (it does not match the one this browser started), so it was refused. Start again.";
    case "expired":
      return "This sign-in expired or was started in another browser. Start again.";
    case "no_role":
      return `Your ${provider} account is not in a group that may use Vigil. Ask an admin to add you to one, then sign in again.`;
    case "disabled":
      return "Your Vigil account is disabled. Ask an admin to enable it.";
    case "no_email":
      return `${provider} did not send an email address for your account, and Vigil needs one. Ask an admin to check the "email" scope.`;
    case "email_taken":
      return "Another Vigil account already uses your email address. Ask an admin to sort out the two accounts.";
    case "unavailable":
      return `${provider} could not be reached. Try again in a moment.`;
    case "failed":
      return `Signing in with ${provider} failed. Try again; if it keeps failing, an admin finds the reason in the console's log.`;
  }
}

export function isOidcErrorCode(v: unknown): v is OidcErrorCode {
  return typeof v === "string" && (OIDC_ERROR_CODES as readonly string[]).includes(v);
}

export class OidcLoginError extends DomainError {
  constructor(
    readonly reason: OidcErrorCode,
    provider: string,
  ) {
    super(STATUS[reason], `sso_${reason}`, oidcErrorMessage(reason, provider));
  }
}
