// Second leg of a single sign-on: the provider sent the browser back with a code. Use the flow row once,
// check state, exchange the code with the PKCE verifier (openid-client checks the ID token's issuer,
// audience, expiry and nonce), read the claims, then sign the user in (sign-in-oidc-user.ts).
// Tokens are used here and dropped: none is stored, logged or audited.
import * as client from "openid-client";
import type pg from "pg";
import { withTransaction } from "../../db/pool";
import { getLogger } from "../../log";
import { recordAudit } from "../../audit/record-audit";
import { sha256Hex } from "../authenticate";
import type { ClientInfo } from "../login";
import type { NewSession } from "../sessions";
import type { UserRecord } from "../user-record";
import { getOidcConfiguration } from "./oidc-client";
import { OidcLoginError, type OidcErrorCode } from "./oidc-login-error";
import { getOidcSettings, type OidcSettings } from "./oidc-settings";
import { signInOidcUser, ssoActor } from "./sign-in-oidc-user";

interface FlowRow {
  state: string;
  nonce: string;
  code_verifier: string;
  redirect_uri: string;
  next_path: string;
  live: boolean;
}

export interface FinishedOidcLogin {
  user: UserRecord;
  session: NewSession;
  next: string;
}

const NETWORK_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ENOTFOUND", "EAI_AGAIN", "ETIMEDOUT", "UND_ERR_CONNECT_TIMEOUT"]);

function isNetworkError(err: unknown): boolean {
  const e = err as { name?: string; code?: string; cause?: { code?: string; name?: string } } | null;
  if (!e) return false;
  if (e.name === "TimeoutError" || e.name === "AbortError") return true;
  if (e.cause && (NETWORK_CODES.has(e.cause.code ?? "") || e.cause.name === "TimeoutError")) return true;
  return e instanceof TypeError && /fetch failed/.test(String((e as Error).message));
}

/** What may be logged of an openid-client error: its kind and message, never a token or the response body. */
function describe(err: unknown): Record<string, unknown> {
  const e = err as { name?: string; message?: string; code?: string; error?: string; status?: number; cause?: { code?: string } };
  return { name: e?.name, reason: e?.message, code: e?.code, oauthError: e?.error, status: e?.status, causeCode: e?.cause?.code };
}

async function auditRefusal(pool: pg.Pool, settings: OidcSettings, c: ClientInfo, outcome: string, label = "sso") {
  await withTransaction(
    (tx) =>
      recordAudit(tx, {
        actor: { ...ssoActor(label, c), type: "anonymous", id: null, role: "viewer" },
        action: "auth.login_failure",
        targetType: "user",
        targetId: null,
        after: { method: "oidc", provider: settings.name, outcome },
      }),
    pool,
  );
}

export async function finishOidcLogin(
  pool: pg.Pool,
  flowId: string | undefined,
  callbackQuery: URLSearchParams,
  c: ClientInfo,
): Promise<FinishedOidcLogin> {
  const settings = getOidcSettings();
  if (!settings) throw new OidcLoginError("not_configured", "single sign-on");
  const refuse = async (code: OidcErrorCode, outcome: string = code): Promise<never> => {
    await auditRefusal(pool, settings, c, outcome);
    throw new OidcLoginError(code, settings.name);
  };

  // Used once, whatever happens next: a replayed callback finds nothing.
  const { rows } = flowId
    ? await pool.query<FlowRow>(
        `DELETE FROM oidc_login_flows WHERE id = $1
         RETURNING state, nonce, code_verifier, redirect_uri, next_path, expires_at > clock_timestamp() AS live`,
        [sha256Hex(flowId)],
      )
    : { rows: [] as FlowRow[] };
  const flow = rows[0];
  if (!flow || !flow.live) return refuse("expired");
  if (callbackQuery.get("state") !== flow.state) return refuse("invalid_state");

  const providerError = callbackQuery.get("error");
  if (providerError) {
    getLogger().info({ oauthError: providerError.slice(0, 64) }, "OIDC provider refused the sign-in");
    return refuse(providerError === "access_denied" ? "access_denied" : "provider_error", `provider:${providerError.slice(0, 64)}`);
  }

  let claims: Record<string, unknown>;
  let config: client.Configuration;
  try {
    config = await getOidcConfiguration(settings);
    // The URL the code was issued for: redirect_uri must match it exactly, whatever host the request reached us on.
    const current = new URL(flow.redirect_uri);
    current.search = callbackQuery.toString();
    const tokens = await client.authorizationCodeGrant(config, current, {
      pkceCodeVerifier: flow.code_verifier,
      expectedState: flow.state,
      expectedNonce: flow.nonce,
      idTokenExpected: true,
    });
    const idClaims = tokens.claims()!;
    // Providers put groups and profile claims in the ID token, in userinfo, or both: read both.
    const userinfo = config.serverMetadata().userinfo_endpoint ? await client.fetchUserInfo(config, tokens.access_token, idClaims.sub) : {};
    claims = { ...userinfo, ...idClaims };
  } catch (err) {
    if (isNetworkError(err)) {
      getLogger().warn({ issuer: settings.issuer.href, ...describe(err) }, "OIDC provider could not be reached");
      return refuse("unavailable");
    }
    getLogger().warn({ issuer: settings.issuer.href, ...describe(err) }, "OIDC sign-in failed at the code exchange");
    const e = err as { code?: string };
    return refuse(e.code === "OAUTH_JWT_CLAIM_COMPARISON_FAILED" ? "invalid_state" : "failed", `exchange:${e.code ?? "error"}`);
  }

  const { user, session } = await signInOidcUser(pool, settings, config.serverMetadata().issuer, claims, c);
  return { user, session, next: flow.next_path };
}
