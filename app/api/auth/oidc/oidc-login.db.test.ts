// Single sign-on end to end through the real routes, against a real OIDC provider (test/oidc-provider.ts):
// authorization code + PKCE, the role from the groups claim at every sign-in (and, without team rules, as the role in
// the default team unless an admin set that by hand), refusals, tampered and replayed callbacks, and local passwords
// switched off.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { NextRequest } from "next/server";
import { useTestDatabase } from "@/test/db";
import { callRoute } from "@/test/call-route";
import { signInAtTestProvider, startTestOidcProvider, TEST_OIDC_ACCOUNTS, type TestOidcProvider } from "@/test/oidc-provider";
import { getPool } from "@/core/db/pool";
import { createUser } from "@/core/auth/create-user";
import { updateUser } from "@/core/auth/update-user";
import { listUsers } from "@/core/auth/list-users";
import { systemActor } from "@/core/auth/roles";
import { setTeamMember } from "@/core/teams/team-store";
import { DEFAULT_TEAM_ID } from "@/core/teams/team-roles";
import { GET as oidcLogin } from "./login/route";
import { GET as oidcCallback } from "./callback/route";
import { GET as meGet } from "../me/route";
import { POST as passwordLogin } from "../login/route";

const db = useTestDatabase("oidc_login");
const BASE = "http://localhost:3000";
const noParams = { params: Promise.resolve({}) };
let idp: TestOidcProvider;
const envKeys: string[] = [];

beforeAll(async () => {
  idp = await startTestOidcProvider({ redirectUris: [`${BASE}/api/auth/oidc/callback`] });
  for (const [k, v] of Object.entries(idp.env())) {
    envKeys.push(k);
    process.env[k] = v;
  }
});
afterAll(async () => {
  for (const k of envKeys) delete process.env[k];
  await idp?.stop();
});

function cookieFrom(res: Response, name: string): string | null {
  const c = res.headers.getSetCookie().find((s) => s.startsWith(`${name}=`));
  return c ? c.split(";")[0]!.slice(name.length + 1) : null;
}

/** Starts a sign-in as the browser would: the redirect to the provider and the flow cookie. */
async function startSignIn(next = "/runs") {
  const res = await oidcLogin(new NextRequest(`${BASE}/api/auth/oidc/login?next=${encodeURIComponent(next)}`), noParams);
  expect(res.status).toBe(303);
  return { authorizationUrl: res.headers.get("location")!, flowCookie: cookieFrom(res, "vigil_oidc_flow")! };
}

async function callback(url: URL, flowCookie: string | null) {
  const local = new URL(url.pathname + url.search, BASE);
  const res = await oidcCallback(
    new NextRequest(local, { headers: flowCookie ? { cookie: `vigil_oidc_flow=${flowCookie}` } : {} }),
    noParams,
  );
  return { status: res.status, location: res.headers.get("location"), session: cookieFrom(res, "vigil_session"), res };
}

async function signIn(login: string, opts: { cancel?: boolean } = {}) {
  const { authorizationUrl, flowCookie } = await startSignIn();
  const back = await signInAtTestProvider(authorizationUrl, login, opts);
  return { ...(await callback(back, flowCookie)), back };
}

async function me(session: string) {
  return callRoute(meGet, { headers: { cookie: `vigil_session=${session}` } });
}

async function userRow(email: string) {
  const { rows } = await getPool().query(`SELECT id, role, password_hash, oidc_issuer, oidc_subject FROM users WHERE email = $1`, [email]);
  return rows[0];
}

async function auditRows(sinceId = 0) {
  const { rows } = await getPool().query(`SELECT id, action, actor, target_id, after FROM audit_events WHERE id > $1 ORDER BY id`, [
    sinceId,
  ]);
  return rows as Array<{ id: number; action: string; actor: string; target_id: string | null; after: Record<string, unknown> | null }>;
}

async function defaultTeamRole(email: string): Promise<{ role: string; source: string } | undefined> {
  const { rows } = await getPool().query(
    `SELECT m.role, m.source FROM team_members m JOIN users u ON u.id = m.user_id WHERE u.email = $1 AND m.team_id = $2`,
    [email, DEFAULT_TEAM_ID],
  );
  return rows[0];
}

async function lastAuditId(): Promise<number> {
  const { rows } = await getPool().query(`SELECT COALESCE(max(id), 0)::int AS id FROM audit_events`);
  return rows[0].id;
}

describe("single sign-on (OIDC)", () => {
  it("sends the browser to the provider with PKCE (S256), state and nonce, and keeps the flow in an HttpOnly cookie", async () => {
    const res = await oidcLogin(new NextRequest(`${BASE}/api/auth/oidc/login`), noParams);
    const url = new URL(res.headers.get("location")!);
    expect(url.origin).toBe(idp.issuer);
    expect(url.searchParams.get("client_id")).toBe(idp.clientId);
    expect(url.searchParams.get("code_challenge_method")).toBe("S256");
    expect(url.searchParams.get("code_challenge")).toMatch(/^[\w-]{43}$/);
    expect(url.searchParams.get("state")).toBeTruthy();
    expect(url.searchParams.get("nonce")).toBeTruthy();
    expect(url.searchParams.get("redirect_uri")).toBe(`${BASE}/api/auth/oidc/callback`);
    expect(url.searchParams.get("client_secret")).toBeNull();
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith("vigil_oidc_flow="))!;
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=lax/i);
    expect(cookie).toMatch(/Path=\/api\/auth\/oidc/);
    expect(cookie).toMatch(/Max-Age=600/);
  });

  it("an admin-group user signs in as admin: created without a password, session cookie, audited without secrets", async () => {
    const since = await lastAuditId();
    const a = TEST_OIDC_ACCOUNTS.admin;
    const r = await signIn(a.login);
    expect(r.status).toBe(303);
    expect(r.location).toBe("/runs");
    expect(r.session).toBeTruthy();
    expect(await me(r.session!)).toMatchObject({ status: 200, body: { actor: { type: "user", label: a.email, role: "admin" } } });
    const row = await userRow(a.email);
    expect(row).toMatchObject({ role: "admin", password_hash: null, oidc_issuer: idp.issuer, oidc_subject: a.login });
    // The Admin page's user list marks the account as signing in through SSO.
    expect((await listUsers(getPool())).find((u) => u.email === a.email)).toMatchObject({ role: "admin", sso: true, activeSessions: 1 });

    const audit = await auditRows(since);
    expect(audit.map((e) => e.action)).toEqual(["user.create", "auth.login"]);
    expect(audit[0]!.after).toMatchObject({ email: a.email, role: "admin", via: "oidc" });
    expect(audit[1]).toMatchObject({ actor: a.email, target_id: row.id, after: { method: "oidc", provider: "Test IdP" } });
    // Neither the client secret nor the authorization code (nor anything derived from them) is in the trail.
    const text = JSON.stringify(audit);
    expect(text).not.toContain(idp.clientSecret);
    expect(text).not.toContain(r.back.searchParams.get("code")!);

    // No local password: the password form cannot sign this user in.
    const pw = await callRoute(passwordLogin, {
      method: "POST",
      path: "/api/auth/login",
      body: { email: a.email, password: "x".repeat(16) },
    });
    expect(pw.status).toBe(401);
  });

  it("a viewer-group user gets viewer, an operator-group user operator", async () => {
    const v = await signIn(TEST_OIDC_ACCOUNTS.viewer.login);
    expect((await me(v.session!)).body.actor.role).toBe("viewer");
    const o = await signIn(TEST_OIDC_ACCOUNTS.operator.login);
    expect((await me(o.session!)).body.actor.role).toBe("operator");
  });

  it("refuses a user whose groups map to no role, with a clear reason on the sign-in page, and creates nobody", async () => {
    const since = await lastAuditId();
    const r = await signIn(TEST_OIDC_ACCOUNTS.outsider.login);
    expect(r.status).toBe(303);
    expect(r.location).toBe("/login?sso_error=no_role");
    expect(r.session).toBeNull();
    expect(await userRow(TEST_OIDC_ACCOUNTS.outsider.email)).toBeUndefined();
    const audit = await auditRows(since);
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      action: "auth.login_failure",
      actor: TEST_OIDC_ACCOUNTS.outsider.email,
      after: { outcome: "no_role" },
    });
  });

  it("re-evaluates the role at every sign-in: a demoted user is demoted, one removed from every group is refused and signed out", async () => {
    const account = { login: "rita", email: "rita@idp.test", name: "Rita", groups: ["vigil-admins"] };
    idp.accounts.set(account.login, account);
    const first = await signIn(account.login);
    expect((await me(first.session!)).body.actor.role).toBe("admin");

    account.groups = ["vigil-viewers"];
    const since = await lastAuditId();
    const second = await signIn(account.login);
    expect((await me(second.session!)).body.actor.role).toBe("viewer");
    // Every session of the user follows the role at once (it is read from the user at each request).
    expect((await me(first.session!)).body.actor.role).toBe("viewer");
    const change = (await auditRows(since)).find((e) => e.action === "user.role_change");
    expect(change?.after).toMatchObject({ role: "viewer", claim: "groups" });

    account.groups = [];
    const third = await signIn(account.login);
    expect(third.location).toBe("/login?sso_error=no_role");
    expect((await me(first.session!)).status).toBe(401);
    expect((await me(second.session!)).status).toBe(401);
  });

  it("refuses a user an admin disabled in Vigil, even though the provider vouches for them", async () => {
    const account = { login: "dora", email: "dora@idp.test", name: "Dora", groups: ["payments-oncall"] };
    idp.accounts.set(account.login, account);
    expect((await signIn(account.login)).status).toBe(303);
    const row = await userRow(account.email);
    await updateUser(row.id, { disabled: true }, systemActor("test"));
    const r = await signIn(account.login);
    expect(r.location).toBe("/login?sso_error=disabled");
    expect(r.session).toBeNull();
  });

  it("an SSO user's role is the provider's: an admin's edit of it is refused (409 sso_managed_role), other edits are not", async () => {
    const account = { login: "sami", email: "sami@idp.test", name: "Sami", groups: ["payments-oncall"] };
    idp.accounts.set(account.login, account);
    expect((await signIn(account.login)).status).toBe(303);
    const row = await userRow(account.email);
    expect((await listUsers(getPool())).find((u) => u.email === account.email)).toMatchObject({ sso: true, roleManagedBy: "Test IdP" });
    await expect(updateUser(row.id, { role: "admin" }, systemActor("test"))).rejects.toMatchObject({
      status: 409,
      code: "sso_managed_role",
      message: expect.stringContaining("groups claim"),
    });
    expect(await userRow(account.email)).toMatchObject({ role: "operator" });
    // The same role again, or the name, is fine.
    await updateUser(row.id, { role: "operator", name: "Sami S." }, systemActor("test"));
    // A local user's role stays the admin's to set.
    const local = await createUser({ email: "local-role@vigil.test", password: "local-password-123", role: "viewer" }, systemActor("test"));
    expect((await updateUser(local.id, { role: "operator" }, systemActor("test"))).role).toBe("operator");
    expect((await listUsers(getPool())).find((u) => u.id === local.id)?.roleManagedBy).toBeNull();
  });

  it("a sign-in that would demote the last active admin keeps them admin, audited; with another admin it demotes", async () => {
    const account = { login: "lara", email: "lara@idp.test", name: "Lara", groups: ["vigil-admins"] };
    idp.accounts.set(account.login, account);
    expect((await signIn(account.login)).status).toBe(303);
    const me_ = await userRow(account.email);
    // Every other admin is disabled for this test: Lara is the last active admin.
    const { rows: others } = await getPool().query(
      `UPDATE users SET disabled_at = clock_timestamp() WHERE role = 'admin' AND disabled_at IS NULL AND id <> $1 RETURNING id`,
      [me_.id],
    );
    try {
      account.groups = ["vigil-viewers"];
      const since = await lastAuditId();
      const r = await signIn(account.login);
      expect((await me(r.session!)).body.actor.role).toBe("admin");
      expect(await userRow(account.email)).toMatchObject({ role: "admin" });
      const rows = await auditRows(since);
      expect(rows.find((e) => e.action === "user.sso_demotion_refused")).toMatchObject({
        target_id: me_.id,
        after: { role: "viewer", claim: "groups" },
      });
      expect(rows.find((e) => e.action === "user.role_change")).toBeUndefined();
    } finally {
      await getPool().query(`UPDATE users SET disabled_at = NULL WHERE id = ANY($1::uuid[])`, [others.map((o) => o.id)]);
    }
    // With another active admin, the provider's demotion applies.
    const again = await signIn(account.login);
    expect((await me(again.session!)).body.actor.role).toBe("viewer");
  });

  it("links an existing local account with the provider's verified email instead of creating a second one", async () => {
    const account = { login: "lena", email: "lena@idp.test", name: "Lena", groups: ["payments-oncall"] };
    idp.accounts.set(account.login, account);
    const local = await createUser({ email: account.email, password: "local-password-123", role: "viewer" }, systemActor("test"));
    const r = await signIn(account.login);
    expect((await me(r.session!)).body.actor).toMatchObject({ id: local.id, role: "operator" });
    expect(await userRow(account.email)).toMatchObject({ id: local.id, oidc_subject: account.login });
    // The default-team role that mirrored the local account's role is the provider's now, as the role is.
    expect(await defaultTeamRole(account.email)).toEqual({ role: "operator", source: "sso" });
  });

  it("the role map's default-team role is written under the team rules' one rule: a hand-set role wins, a change is audited once", async () => {
    const account = { login: "mona", email: "mona@idp.test", name: "Mona", groups: ["vigil-viewers"] };
    idp.accounts.set(account.login, account);
    const ssoAudit = async (since: number) =>
      (
        await getPool().query(`SELECT before, after FROM audit_events WHERE id > $1 AND action = 'user.sso_team_roles' ORDER BY id`, [
          since,
        ])
      ).rows;
    let since = await lastAuditId();
    await signIn(account.login);
    expect(await defaultTeamRole(account.email)).toEqual({ role: "viewer", source: "sso" });
    expect(await ssoAudit(since)).toEqual([{ before: { teams: {} }, after: { teams: { default: "viewer" } } }]);

    // Promoted at the provider: one audit row for the change, none for a sign-in that changes nothing.
    account.groups = ["payments-oncall"];
    since = await lastAuditId();
    await signIn(account.login);
    await signIn(account.login);
    expect(await defaultTeamRole(account.email)).toEqual({ role: "operator", source: "sso" });
    expect(await ssoAudit(since)).toEqual([{ before: { teams: { default: "viewer" } }, after: { teams: { default: "operator" } } }]);

    // An admin sets her default-team role by hand (the Teams page): the role map no longer overrides it.
    await setTeamMember(DEFAULT_TEAM_ID, { email: account.email, role: "viewer" }, systemActor("test"));
    expect(await defaultTeamRole(account.email)).toEqual({ role: "viewer", source: "manual" });
    since = await lastAuditId();
    const r = await signIn(account.login);
    expect(await defaultTeamRole(account.email)).toEqual({ role: "viewer", source: "manual" });
    expect((await me(r.session!)).body.actor.teams).toEqual([expect.objectContaining({ name: "default", role: "viewer" })]);
    expect(await ssoAudit(since)).toEqual([]);
  });

  it("refuses a tampered state, a replayed callback and a callback without this browser's flow cookie", async () => {
    const { authorizationUrl, flowCookie } = await startSignIn();
    const back = await signInAtTestProvider(authorizationUrl, TEST_OIDC_ACCOUNTS.admin.login);
    const tampered = new URL(back);
    tampered.searchParams.set("state", `${back.searchParams.get("state")}x`);
    const bad = await callback(tampered, flowCookie);
    expect(bad.location).toBe("/login?sso_error=invalid_state");
    expect(bad.session).toBeNull();
    // The flow was used up by that attempt: the genuine callback arriving afterwards is refused too.
    const replay = await callback(back, flowCookie);
    expect(replay.location).toBe("/login?sso_error=expired");
    expect(replay.session).toBeNull();

    // A callback in a browser that did not start the sign-in (login CSRF) has no flow cookie.
    const other = await startSignIn();
    const otherBack = await signInAtTestProvider(other.authorizationUrl, TEST_OIDC_ACCOUNTS.admin.login);
    const noCookie = await callback(otherBack, null);
    expect(noCookie.location).toBe("/login?sso_error=expired");
    // The flow cookie is cleared on every answer of the callback.
    expect(noCookie.res.headers.getSetCookie().some((c) => /^vigil_oidc_flow=;.*Max-Age=0/i.test(c))).toBe(true);
  });

  it("refuses an expired flow", async () => {
    const { authorizationUrl, flowCookie } = await startSignIn();
    const back = await signInAtTestProvider(authorizationUrl, TEST_OIDC_ACCOUNTS.admin.login);
    await getPool().query(`UPDATE oidc_login_flows SET expires_at = clock_timestamp() - interval '1 second'`);
    expect((await callback(back, flowCookie)).location).toBe("/login?sso_error=expired");
  });

  it("shows a cancel at the provider (access_denied) as a clear refusal, not an error", async () => {
    const r = await signIn(TEST_OIDC_ACCOUNTS.admin.login, { cancel: true });
    expect(r.back.searchParams.get("error")).toBe("access_denied");
    expect(r.location).toBe("/login?sso_error=access_denied");
  });

  it("with VIGIL_LOCAL_LOGIN=off refuses password sign-in with 403 local_login_disabled, naming the way in", async () => {
    await createUser({ email: "local@vigil.test", password: "local-password-123", role: "admin" }, systemActor("test"));
    process.env.VIGIL_LOCAL_LOGIN = "off";
    try {
      vi.resetModules();
      const { POST } = await import("../login/route");
      const res = await callRoute(POST, {
        method: "POST",
        path: "/api/auth/login",
        body: { email: "local@vigil.test", password: "local-password-123" },
      });
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe("local_login_disabled");
      expect(res.body.error.message).toMatch(/Sign in with Test IdP/);
    } finally {
      delete process.env.VIGIL_LOCAL_LOGIN;
      vi.resetModules();
    }
  });

  it("refuses to start without a usable configuration: local login off with no provider, a role map it cannot read", async () => {
    const saved = { ...process.env };
    try {
      for (const [env, message] of [
        [{ VIGIL_OIDC_ISSUER: "", VIGIL_LOCAL_LOGIN: "off" }, /VIGIL_LOCAL_LOGIN: can be off only when single sign-on is configured/],
        [{ VIGIL_OIDC_ROLE_MAP: "vigil-admins=root" }, /VIGIL_OIDC_ROLE_MAP: entry "vigil-admins=root"/],
        [{ VIGIL_OIDC_ROLE_MAP: "" }, /VIGIL_OIDC_ROLE_MAP: required with VIGIL_OIDC_ISSUER/],
        [{ VIGIL_OIDC_ISSUER: "http://idp.example.com" }, /VIGIL_OIDC_ISSUER: must be https/],
      ] as const) {
        Object.assign(process.env, env);
        vi.resetModules();
        const { getEnv } = await import("@/core/env");
        expect(() => getEnv()).toThrow(message);
        for (const k of Object.keys(env)) process.env[k] = saved[k] ?? "";
      }
    } finally {
      process.env = saved;
      vi.resetModules();
    }
  });
});

void db;
