// Why a sign-in posted by the plain HTML form (no JavaScript) did not go through. The login route answers such a
// form with a redirect back to /login?login_error=<code>, never with the email or password in the URL; the sign-in
// page shows the sentence for the code (only these codes, so nothing a URL carries is shown as text).
export const PASSWORD_LOGIN_ERROR_CODES = [
  "invalid",
  "rate_limited",
  "invalid_input",
  "local_login_disabled",
  "unavailable",
  "failed",
] as const;
export type PasswordLoginErrorCode = (typeof PASSWORD_LOGIN_ERROR_CODES)[number];

export function isPasswordLoginErrorCode(v: unknown): v is PasswordLoginErrorCode {
  return typeof v === "string" && (PASSWORD_LOGIN_ERROR_CODES as readonly string[]).includes(v);
}

/** The code for an error the login threw (its DomainError code and status). */
export function passwordLoginErrorCode(err: { status?: number; code?: string }): PasswordLoginErrorCode {
  if (err.status === 401) return "invalid";
  if (err.status === 429) return "rate_limited";
  if (err.code === "local_login_disabled") return "local_login_disabled";
  if (err.status === 503) return "unavailable";
  if (err.status === 400 || err.status === 422) return "invalid_input";
  return "failed";
}

/** `retryAfterSeconds`: from the redirect's retry_after (digits only), for rate_limited. */
export function passwordLoginErrorMessage(code: PasswordLoginErrorCode, retryAfterSeconds: number | null): string {
  switch (code) {
    case "invalid":
      return "The email or password is not right.";
    case "rate_limited": {
      const s = retryAfterSeconds ?? 0;
      const when = s <= 0 ? "a little while" : s < 120 ? `${s} second(s)` : `${Math.ceil(s / 60)} minute(s)`;
      return `Too many failed sign-in attempts for this account from your address. Try again in ${when}.`;
    }
    case "invalid_input":
      return "Enter your email and password.";
    case "local_login_disabled":
      return "Signing in with a password is switched off on this console.";
    case "unavailable":
      return "The database is unavailable right now. Try again in a few seconds.";
    case "failed":
      return "Signing in failed on the server; it has been logged. Try again.";
  }
}
