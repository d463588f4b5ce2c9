// A real OpenID Connect provider for tests: node-oidc-provider (the certified server, not a mock) on a free
// local port, with one confidential client that must use PKCE, test accounts carrying a `groups` claim, and
// its development interactions (a login form taking any password, then a consent form). Browsers drive
// those pages in e2e; signInAtTestProvider drives them over HTTP for database/API tests.
import http from "node:http";
import Provider from "oidc-provider";
import { freePort } from "./postgres-for-tests";

export interface TestOidcAccount {
  /** What is typed into the provider's login field; also the `sub`. */
  login: string;
  email: string;
  name: string;
  groups: string[];
  emailVerified?: boolean;
  /** More claims, sent with the groups scope: a Keycloak's nested realm_access / resource_access roles. */
  extraClaims?: Record<string, unknown>;
  /** Send no groups claim at all (Google Workspace's shape). */
  noGroupsClaim?: boolean;
}

export const TEST_OIDC_ACCOUNTS: Record<"admin" | "operator" | "viewer" | "outsider", TestOidcAccount> = {
  admin: { login: "ada", email: "ada@idp.test", name: "Ada Admin", groups: ["staff", "vigil-admins"] },
  operator: { login: "otto", email: "otto@idp.test", name: "Otto Operator", groups: ["payments-oncall"] },
  viewer: { login: "vera", email: "vera@idp.test", name: "Vera Viewer", groups: ["vigil-viewers"] },
  outsider: { login: "olga", email: "olga@idp.test", name: "Olga Outsider", groups: ["marketing"] },
};

/** The role map the tests configure Vigil with for these accounts (no `*`: an outsider is refused). */
export const TEST_OIDC_ROLE_MAP = "vigil-admins=admin,payments-oncall=operator,vigil-viewers=viewer";

export interface TestOidcProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Change an account's groups (or add an account) while the provider runs: the next sign-in sees it. */
  accounts: Map<string, TestOidcAccount>;
  /**
   * Rewrites the provider's redirects back to a client (Location headers) while set: how a test stands in for
   * someone who changes the URL on its way to the browser (a browser follows redirects before Playwright can).
   */
  rewriteRedirects: ((location: URL) => URL) | null;
  /** The environment a Vigil console needs to use this provider. */
  env(): Record<string, string>;
  stop(): Promise<void>;
}

export async function startTestOidcProvider(opts: {
  redirectUris: string[];
  accounts?: TestOidcAccount[];
  port?: number;
}): Promise<TestOidcProvider> {
  const port = opts.port ?? (await freePort());
  const issuer = `http://localhost:${port}`;
  const clientId = "vigil-console";
  const clientSecret = "test-client-secret-9f2c1e77d0b84b6a";
  const accounts = new Map((opts.accounts ?? Object.values(TEST_OIDC_ACCOUNTS)).map((a) => [a.login, { ...a }]));

  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: opts.redirectUris,
        grant_types: ["authorization_code"],
        response_types: ["code"],
        token_endpoint_auth_method: "client_secret_post",
      },
    ],
    // PKCE is optional for a confidential client by default; demanding it proves Vigil sends it.
    pkce: { required: () => true },
    claims: {
      openid: ["sub"],
      email: ["email", "email_verified"],
      profile: ["name"],
      groups: ["groups", "realm_access", "resource_access"],
    },
    async findAccount(_ctx, id) {
      const a = accounts.get(id);
      if (!a) return undefined;
      return {
        accountId: id,
        async claims() {
          return {
            sub: id,
            email: a.email,
            email_verified: a.emailVerified ?? true,
            name: a.name,
            ...(a.noGroupsClaim ? {} : { groups: a.groups }),
            ...a.extraClaims,
          };
        },
      };
    },
    features: { devInteractions: { enabled: true } },
    cookies: { keys: ["vigil-test-oidc-cookie-key"] },
    // Explicit lifetimes (seconds) keep the provider from printing a notice for each default it falls back to.
    ttl: { Interaction: 600, Session: 3600, Grant: 3600, AccessToken: 600, IdToken: 600, AuthorizationCode: 60 },
  });
  // The provider warns about development-only settings (devInteractions, its generated signing key) on each start.
  const callback = provider.callback();
  const handle: TestOidcProvider = {} as TestOidcProvider;
  const server = http.createServer((req, res) => {
    const setHeader = res.setHeader.bind(res);
    res.setHeader = (name, value) => {
      const rewrite = handle.rewriteRedirects;
      if (rewrite && name.toLowerCase() === "location" && typeof value === "string") {
        const target = new URL(value, issuer);
        if (opts.redirectUris.some((u) => target.href.startsWith(u))) return setHeader(name, rewrite(target).href);
      }
      return setHeader(name, value);
    };
    callback(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  return Object.assign(handle, {
    issuer,
    clientId,
    clientSecret,
    accounts,
    rewriteRedirects: null,
    env: () => ({
      VIGIL_OIDC_ISSUER: issuer,
      VIGIL_OIDC_CLIENT_ID: clientId,
      VIGIL_OIDC_CLIENT_SECRET: clientSecret,
      VIGIL_OIDC_NAME: "Test IdP",
      VIGIL_OIDC_SCOPES: "openid email profile groups",
      VIGIL_OIDC_ROLE_CLAIM: "groups",
      VIGIL_OIDC_ROLE_MAP: TEST_OIDC_ROLE_MAP,
    }),
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

/** A minimal cookie jar: enough for the provider's interaction cookies over plain http on one host. */
class CookieJar {
  private cookies = new Map<string, string>();
  take(res: Response): void {
    for (const c of res.headers.getSetCookie()) {
      const [pair, ...attrs] = c.split(";");
      const eq = pair!.indexOf("=");
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      const expired = attrs.some((a) => /^\s*expires=Thu, 01 Jan 1970/i.test(a) || /^\s*max-age=0\b/i.test(a));
      if (expired || value === "") this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }
}

/**
 * Goes through the provider's pages as a browser would, from the authorization URL Vigil redirected to, and
 * returns the URL the provider sends the browser back to (Vigil's callback, with code and state or an error).
 * `cancel`: press "Cancel" on the login page instead (the provider answers access_denied).
 */
export async function signInAtTestProvider(authorizationUrl: string, login: string, opts: { cancel?: boolean } = {}): Promise<URL> {
  const jar = new CookieJar();
  const issuerOrigin = new URL(authorizationUrl).origin;
  let next: { url: string; method: "GET" | "POST"; body?: URLSearchParams } = { url: authorizationUrl, method: "GET" };
  for (let step = 0; step < 12; step++) {
    const res = await fetch(next.url, {
      method: next.method,
      redirect: "manual",
      headers: { cookie: jar.header(), ...(next.body ? { "content-type": "application/x-www-form-urlencoded" } : {}) },
      body: next.body,
    });
    jar.take(res);
    const location = res.headers.get("location");
    if (res.status >= 300 && res.status < 400 && location) {
      const target = new URL(location, next.url);
      if (target.origin !== issuerOrigin) return target;
      next = { url: target.href, method: "GET" };
      continue;
    }
    const html = await res.text();
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
    const prompt = /name="prompt" value="(\w+)"/.exec(html)?.[1];
    if (res.status !== 200 || !action || !prompt)
      throw new Error(`unexpected page from the OIDC provider (${res.status}): ${html.slice(0, 500)}`);
    const formUrl = new URL(action.replace(/&amp;/g, "&"), next.url);
    if (opts.cancel) {
      next = { url: `${formUrl.href.replace(/\/$/, "")}/abort`, method: "GET" };
      continue;
    }
    const body = new URLSearchParams({ prompt });
    if (prompt === "login") {
      body.set("login", login);
      body.set("password", "any-password");
    }
    next = { url: formUrl.href, method: "POST", body };
  }
  throw new Error("the OIDC provider did not send the browser back within 12 steps");
}
