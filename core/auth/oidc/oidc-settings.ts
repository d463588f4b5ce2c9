// Single sign-on settings, read from the environment (core/env.ts): null when OIDC is not configured.
import { getEnv } from "../../env";
import type { RoleMap } from "./role-map";
import type { TeamRule } from "./team-rules";

export interface OidcSettings {
  issuer: URL;
  clientId: string;
  /** Never logged, shown or audited. Undefined: a public client, protected by PKCE alone. */
  clientSecret: string | undefined;
  /** Fixed redirect URL, or undefined: this console's own /api/auth/oidc/callback on the request's host. */
  redirectUrl: string | undefined;
  /** The provider's name on the sign-in button and in messages. */
  name: string;
  scopes: string;
  roleClaim: string;
  roleMap: RoleMap;
  /** Team roles from claims (VIGIL_OIDC_TEAM_RULES); empty: single sign-on gives no team memberships. */
  teamRules: readonly TeamRule[];
}

export const OIDC_CALLBACK_PATH = "/api/auth/oidc/callback";

export function getOidcSettings(): OidcSettings | null {
  const env = getEnv();
  if (!env.VIGIL_OIDC_ISSUER || !env.VIGIL_OIDC_CLIENT_ID || !env.VIGIL_OIDC_ROLE_MAP) return null;
  const issuer = new URL(env.VIGIL_OIDC_ISSUER);
  return {
    issuer,
    clientId: env.VIGIL_OIDC_CLIENT_ID,
    clientSecret: env.VIGIL_OIDC_CLIENT_SECRET,
    redirectUrl: env.VIGIL_OIDC_REDIRECT_URL,
    name: env.VIGIL_OIDC_NAME ?? issuer.hostname,
    scopes: env.VIGIL_OIDC_SCOPES.trim().split(/\s+/).join(" "),
    roleClaim: env.VIGIL_OIDC_ROLE_CLAIM,
    roleMap: env.VIGIL_OIDC_ROLE_MAP,
    teamRules: env.VIGIL_OIDC_TEAM_RULES,
  };
}

/** What the sign-in page needs to know: which ways of signing in to offer. */
export function signInOptions(): { sso: { name: string } | null; localLogin: boolean } {
  const sso = getOidcSettings();
  return { sso: sso ? { name: sso.name } : null, localLogin: getEnv().VIGIL_LOCAL_LOGIN };
}
