// First leg of a single sign-on: remember state, nonce and the PKCE verifier in a one-time row and send
// the browser to the provider with the code challenge. The browser keeps only the row's random id.
import crypto from "node:crypto";
import * as client from "openid-client";
import { type Queryable } from "../../db/pool";
import { getLogger } from "../../log";
import { sha256Hex } from "../authenticate";
import { getOidcConfiguration } from "./oidc-client";
import { OidcLoginError } from "./oidc-login-error";
import { getOidcSettings, OIDC_CALLBACK_PATH } from "./oidc-settings";

/** How long a sign-in may take at the provider; also the flow cookie's lifetime. */
export const OIDC_FLOW_TTL_SECONDS = 10 * 60;

export interface StartedOidcLogin {
  /** Goes into the short-lived flow cookie; the database keeps only its SHA-256. */
  flowId: string;
  authorizationUrl: URL;
}

/**
 * @param origin this console as the browser sees it (`https://vigil.example.com`), for the default redirect URL
 * @param next the same-site path to land on after signing in (already checked by the caller)
 */
export async function startOidcLogin(db: Queryable, origin: string, next: string): Promise<StartedOidcLogin> {
  const settings = getOidcSettings();
  if (!settings) throw new OidcLoginError("not_configured", "single sign-on");
  const config = await getOidcConfiguration(settings).catch((err: unknown) => {
    getLogger().warn(
      { issuer: settings.issuer.href, reason: (err as Error)?.message },
      "OIDC discovery failed: the provider could not be reached",
    );
    throw new OidcLoginError("unavailable", settings.name);
  });
  const redirectUri = settings.redirectUrl ?? new URL(OIDC_CALLBACK_PATH, origin).href;
  const flowId = crypto.randomBytes(32).toString("base64url");
  const state = client.randomState();
  const nonce = client.randomNonce();
  const codeVerifier = client.randomPKCECodeVerifier();
  const codeChallenge = await client.calculatePKCECodeChallenge(codeVerifier);
  // Abandoned flows (the tab closed at the provider) go as new ones start.
  await db.query(`DELETE FROM oidc_login_flows WHERE expires_at < clock_timestamp()`);
  await db.query(
    `INSERT INTO oidc_login_flows (id, state, nonce, code_verifier, redirect_uri, next_path, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, clock_timestamp() + make_interval(secs => $7))`,
    [sha256Hex(flowId), state, nonce, codeVerifier, redirectUri, next, OIDC_FLOW_TTL_SECONDS],
  );
  const authorizationUrl = client.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri,
    scope: settings.scopes,
    state,
    nonce,
    code_challenge: codeChallenge,
    code_challenge_method: "S256",
  });
  return { flowId, authorizationUrl };
}
