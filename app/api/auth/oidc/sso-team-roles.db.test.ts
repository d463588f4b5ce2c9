// Single sign-on to team roles (VIGIL_OIDC_TEAM_RULES) through the real routes against the in-test OIDC provider,
// one account per shape real providers send: group names, Entra ID group object ids, no groups claim at all (Google
// Workspace: an email domain, an explicit list), Keycloak's nested realm and client roles. The 'sso' memberships
// are rewritten at each sign-in; the ones an admin set by hand are never touched.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NextRequest } from "next/server";
import { useTestDatabase } from "@/test/db";
import { signInAtTestProvider, startTestOidcProvider, type TestOidcAccount, type TestOidcProvider } from "@/test/oidc-provider";
import { getPool } from "@/core/db/pool";
import { GET as oidcLogin } from "./login/route";
import { GET as oidcCallback } from "./callback/route";

const db = useTestDatabase("sso_team_roles");
const BASE = "http://localhost:3000";
const noParams = { params: Promise.resolve({}) };
const ENTRA_DATA_GROUP = "6f1c2d3e-4b5a-4c6d-8e7f-0a1b2c3d4e5f";

const ACCOUNTS: Record<string, TestOidcAccount> = {
  names: { login: "gina", email: "gina@idp.test", name: "Gina Groups", groups: ["payments-oncall"] },
  entra: { login: "enzo", email: "enzo@corp.test", name: "Enzo Entra", groups: [ENTRA_DATA_GROUP, "11111111-2222-4333-8444-555555555555"] },
  google: { login: "gwen", email: "gwen@workspace.test", name: "Gwen Google", groups: [], noGroupsClaim: true },
  googleOther: { login: "greg", email: "greg@workspace.test", name: "Greg Google", groups: [], noGroupsClaim: true },
  keycloak: {
    login: "kurt",
    email: "kurt@kc.test",
    name: "Kurt Keycloak",
    groups: [],
    noGroupsClaim: true,
    extraClaims: { realm_access: { roles: ["offline_access", "vigil-ops"] }, resource_access: { vigil: { roles: ["audit"] } } },
  },
  unverified: { login: "uma", email: "uma@workspace.test", name: "Uma Unverified", groups: [], noGroupsClaim: true, emailVerified: false },
};

const RULES = [
  { claim: "groups", equals: "payments-oncall", team: "payments", role: "operator" },
  { claim: "groups", oneOf: [ENTRA_DATA_GROUP], team: "data", role: "viewer" },
  { emailDomain: "workspace.test", team: "data", role: "viewer" },
  { emails: ["gwen@workspace.test"], team: "payments", role: "admin" },
  { claim: "realm_access.roles", equals: "vigil-ops", team: "ops", role: "operator" },
  { claim: "resource_access.vigil.roles", equals: "audit", team: "payments", role: "auditor" },
  { claim: "groups", equals: "payments-oncall", team: "no-such-team", role: "viewer" },
];

let idp: TestOidcProvider;
const envKeys: string[] = [];

beforeAll(async () => {
  idp = await startTestOidcProvider({ redirectUris: [`${BASE}/api/auth/oidc/callback`], accounts: Object.values(ACCOUNTS) });
  const env = {
    ...idp.env(),
    // Everyone the provider signs in may enter (as viewer outside their teams); the rules give the team roles.
    VIGIL_OIDC_ROLE_MAP: "vigil-admins=admin,*=viewer",
    VIGIL_OIDC_TEAM_RULES: JSON.stringify(RULES),
  };
  for (const [k, v] of Object.entries(env)) {
    envKeys.push(k);
    process.env[k] = v;
  }
  await getPool().query(`INSERT INTO teams (name) VALUES ('payments'), ('data'), ('ops')`);
});
afterAll(async () => {
  for (const k of envKeys) delete process.env[k];
  await idp?.stop();
});

async function signIn(login: string): Promise<number> {
  const start = await oidcLogin(new NextRequest(`${BASE}/api/auth/oidc/login?next=/`), noParams);
  const flow = start.headers
    .getSetCookie()
    .find((c) => c.startsWith("vigil_oidc_flow="))!
    .split(";")[0]!;
  const back = await signInAtTestProvider(start.headers.get("location")!, login);
  const res = await oidcCallback(new NextRequest(new URL(back.pathname + back.search, BASE), { headers: { cookie: flow } }), noParams);
  expect(res.headers.get("location")).toBe("/");
  return res.status;
}

/** The user's memberships: team name → "role (source)". */
async function memberships(email: string): Promise<Record<string, string>> {
  const { rows } = await getPool().query<{ name: string; role: string; source: string }>(
    `SELECT t.name, m.role, m.source FROM team_members m JOIN teams t ON t.id = m.team_id JOIN users u ON u.id = m.user_id
      WHERE u.email = $1 ORDER BY t.name`,
    [email],
  );
  return Object.fromEntries(rows.map((r) => [r.name, `${r.role} (${r.source})`]));
}

describe("single sign-on to team roles", () => {
  it("group names: a group maps to a team role; a rule naming a team that does not exist grants nothing", async () => {
    expect(await signIn(ACCOUNTS.names!.login)).toBe(303);
    expect(await memberships(ACCOUNTS.names!.email)).toEqual({ payments: "operator (sso)" });
  });

  it("Entra ID group object ids: one of a list of ids", async () => {
    await signIn(ACCOUNTS.entra!.login);
    expect(await memberships(ACCOUNTS.entra!.email)).toEqual({ data: "viewer (sso)" });
  });

  it("no groups claim (Google Workspace): by verified email domain, and an explicit user list", async () => {
    await signIn(ACCOUNTS.google!.login);
    expect(await memberships(ACCOUNTS.google!.email)).toEqual({ data: "viewer (sso)", payments: "admin (sso)" });
    await signIn(ACCOUNTS.googleOther!.login);
    expect(await memberships(ACCOUNTS.googleOther!.email)).toEqual({ data: "viewer (sso)" });
  });

  it("an email the provider does not say is verified matches no email rule", async () => {
    await signIn(ACCOUNTS.unverified!.login);
    expect(await memberships(ACCOUNTS.unverified!.email)).toEqual({});
  });

  it("Keycloak: nested realm roles and client roles (dot paths)", async () => {
    await signIn(ACCOUNTS.keycloak!.login);
    expect(await memberships(ACCOUNTS.keycloak!.email)).toEqual({ ops: "operator (sso)", payments: "auditor (sso)" });
  });

  it("rewrites the sso memberships at each sign-in, audited; manual ones are untouched and win over a rule", async () => {
    const gina = ACCOUNTS.names!;
    const { rows } = await getPool().query<{ id: string }>(`SELECT id FROM users WHERE email = $1`, [gina.email]);
    const userId = rows[0]!.id;
    // An admin made her a viewer of ops by hand.
    await getPool().query(
      `INSERT INTO team_members (team_id, user_id, role, source) SELECT id, $1, 'viewer', 'manual' FROM teams WHERE name = 'ops'`,
      [userId],
    );
    // She leaves payments-oncall and joins the Keycloak-style ops role at the provider.
    idp.accounts.get(gina.login)!.groups = ["marketing"];
    idp.accounts.get(gina.login)!.extraClaims = { realm_access: { roles: ["vigil-ops"] } };
    await signIn(gina.login);
    expect(await memberships(gina.email)).toEqual({ ops: "viewer (manual)" });
    const { rows: audit } = await getPool().query(
      `SELECT before, after FROM audit_events WHERE action = 'user.sso_team_roles' AND target_id = $1 ORDER BY id DESC LIMIT 1`,
      [userId],
    );
    expect(audit[0]).toMatchObject({ before: { teams: { payments: "operator" } }, after: { teams: {} } });

    // Back in the group: the sso membership returns beside the manual one.
    idp.accounts.get(gina.login)!.groups = ["payments-oncall"];
    await signIn(gina.login);
    expect(await memberships(gina.email)).toEqual({ ops: "viewer (manual)", payments: "operator (sso)" });
  });
});

void db;
