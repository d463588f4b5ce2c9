// The provider's configuration (discovery document, endpoints, keys), fetched once per process and kept;
// a failed discovery is not kept, so the next sign-in tries again.
import * as client from "openid-client";
import type { OidcSettings } from "./oidc-settings";

let cached: { key: string; config: Promise<client.Configuration> } | undefined;

const TIMEOUT_SECONDS = 10;

export function getOidcConfiguration(s: OidcSettings): Promise<client.Configuration> {
  const key = `${s.issuer.href} ${s.clientId}`;
  if (cached?.key === key) return cached.config;
  const auth = s.clientSecret ? client.ClientSecretPost(s.clientSecret) : client.None();
  // Plain http is accepted only for a provider on this machine (core/env.ts refuses any other): tests and local trials.
  const insecure = s.issuer.protocol === "http:";
  const config = client
    .discovery(s.issuer, s.clientId, undefined, auth, {
      timeout: TIMEOUT_SECONDS,
      ...(insecure ? { execute: [client.allowInsecureRequests] } : {}),
    })
    .then((c) => {
      c.timeout = TIMEOUT_SECONDS;
      return c;
    });
  cached = { key, config };
  config.catch(() => {
    if (cached?.config === config) cached = undefined;
  });
  return config;
}
