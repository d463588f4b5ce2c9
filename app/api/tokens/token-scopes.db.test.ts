// Tokens with scopes, over every API route (discovered from the file tree): a token holding another scope than the
// route's is refused 403 scope_missing before anything runs; one holding the route's scope gets past the check;
// a token without scopes keeps everything its role allows. Then the token's life through the real routes: created
// with a team, scopes and an expiry, listed with what it may do and when it was last used.
import { beforeAll, describe, expect, it } from "vitest";
import { useTestDatabase } from "@/test/db";
import { callRoute } from "@/test/call-route";
import { createTestSession, createTestToken } from "@/test/auth";
import { discoverEndpoints, MUTATING, type Endpoint } from "@/test/api-endpoints";
import { getPool } from "@/core/db/pool";
import { DEFAULT_TEAM_ID } from "@/core/teams/team-roles";
import { TOKEN_SCOPE_NAMES, type RouteScope, type TokenScope } from "@/core/auth/token-scopes";
import type { RouteSpec } from "@/app/api/_lib/api-route";
import { GET as listTokens, POST as createToken } from "./route";
import { GET as runsGet } from "../runs/route";
import { GET as meGet } from "../auth/me/route";
import { POST as bulkRuns } from "../runs/bulk/route";

const db = useTestDatabase("token_scopes");

let endpoints: Endpoint[] = [];
const tokenFor = new Map<string, string>();

/** An admin token holding only `scope` (one per scope, made once). */
async function scopedAdmin(scope: TokenScope): Promise<string> {
  if (!tokenFor.has(scope)) tokenFor.set(scope, await createTestToken(db.url, "admin", { scopes: [scope] }));
  return tokenFor.get(scope)!;
}

const scopeOf = (e: Endpoint): RouteScope | undefined => (e.handler as unknown as { spec: RouteSpec }).spec.scope;
const needs = (s: RouteScope): TokenScope[] => (s === "any" ? [] : typeof s === "string" ? [s] : [...s]);

async function storedRowCount(): Promise<number> {
  const { rows } = await getPool().query(
    `SELECT sum((xpath('/row/n/text()', query_to_xml(format('SELECT count(*) AS n FROM %I.%I', schemaname, relname), false, true, '')))[1]::text::bigint) AS total
       FROM pg_stat_user_tables WHERE schemaname = 'public'`,
  );
  return Number(rows[0].total);
}

describe("token scopes on every API route", () => {
  beforeAll(async () => {
    endpoints = (await discoverEndpoints()).filter((e) => scopeOf(e) !== undefined);
  });

  it("every non-public route declares a scope", () => {
    expect(endpoints.length).toBeGreaterThan(60);
  });

  it("refuses a token holding another scope 403 scope_missing, naming the scope, and stores nothing", async () => {
    for (const s of TOKEN_SCOPE_NAMES) await scopedAdmin(s);
    const before = await storedRowCount();
    const wrong: string[] = [];
    for (const e of endpoints) {
      const scope = scopeOf(e)!;
      if (scope === "any") continue;
      const other = TOKEN_SCOPE_NAMES.find((s) => !needs(scope).includes(s))!;
      const res = await callRoute(e.handler, {
        method: e.method,
        path: e.path,
        params: e.params,
        token: await scopedAdmin(other),
        body: MUTATING.has(e.method) ? {} : undefined,
      });
      const named = needs(scope).every((s) => String(res.body?.error?.message).includes(s));
      if (res.status !== 403 || res.body?.error?.code !== "scope_missing" || !named)
        wrong.push(`${e.key} → ${res.status} ${res.body?.error?.code}`);
    }
    expect(wrong).toEqual([]);
    expect(await storedRowCount()).toBe(before);
  });

  it("lets a token holding the route's scope past the scope check (and the routes every token may call)", async () => {
    const wrong: string[] = [];
    for (const e of endpoints) {
      if (e.method !== "GET") continue; // reads only: a mutation with the right scope would act
      const scope = scopeOf(e)!;
      const token = await scopedAdmin(scope === "any" ? "runs:read" : needs(scope)[0]!);
      const res = await callRoute(e.handler, { method: e.method, path: e.path, params: e.params, token });
      // (The caller's own sessions refuse every token with 403 forbidden: tokens have none.)
      if (res.body?.error?.code === "scope_missing" || res.status === 401 || res.status >= 500)
        wrong.push(`${e.key} → ${res.status} ${res.body?.error?.code}`);
    }
    expect(wrong).toEqual([]);
  });

  it("a bulk action needs the scope of its action: runs:cancel cancels, runs:rerun re-runs", async () => {
    const cancelOnly = await createTestToken(db.url, "operator", { scopes: ["runs:cancel"] });
    const rerun = await callRoute(bulkRuns, {
      method: "POST",
      token: cancelOnly,
      body: { action: "rerun", dryRun: true, runIds: [crypto.randomUUID()] },
    });
    expect(rerun).toMatchObject({ status: 403, body: { error: { code: "scope_missing" } } });
    expect(rerun.body.error.message).toContain("runs:rerun");
    const cancel = await callRoute(bulkRuns, {
      method: "POST",
      token: cancelOnly,
      body: { action: "cancel", dryRun: true, scheduleId: crypto.randomUUID() },
    });
    expect(cancel.status).toBe(200);
  });

  it("a token without scopes keeps everything its role allows", async () => {
    const all = await createTestToken(db.url, "viewer");
    expect((await callRoute(runsGet, { token: all })).status).toBe(200);
  });
});

describe("creating and listing scoped tokens", () => {
  let admin = "";
  beforeAll(async () => {
    admin = (await createTestSession(db.url, "admin")).cookie;
  });
  const post = (body: unknown) =>
    callRoute(createToken, { method: "POST", cookie: admin, body, headers: { origin: "http://localhost:3000", host: "localhost:3000" } });

  it("creates a token bound to a team with scopes and an expiry; the list shows them and when it was last used", async () => {
    const res = await post({
      name: "deploy-pipeline",
      role: "operator",
      team: "default",
      scopes: ["runs:trigger", "runs:read"],
      expiresInDays: 7,
    });
    expect(res.status).toBe(200);
    expect(res.body.token).toMatchObject({
      team: { id: DEFAULT_TEAM_ID, name: "default" },
      scopes: ["runs:trigger", "runs:read"],
      lastUsedAt: null,
    });
    const days = (Date.parse(res.body.token.expiresAt) - Date.parse(res.body.token.createdAt)) / 86_400_000;
    expect(Math.round(days)).toBe(7);

    const secret = res.body.secret as string;
    expect((await callRoute(runsGet, { token: secret })).status).toBe(200);
    const me = await callRoute(meGet, { token: secret });
    expect(me.status).toBe(200);
    const refused = await callRoute(listTokens, { token: secret });
    expect(refused.status).toBe(403);

    const list = await callRoute(listTokens, { cookie: admin });
    const listed = list.body.tokens.find((t: { id: string }) => t.id === res.body.token.id);
    expect(listed).toMatchObject({ team: { name: "default" }, scopes: ["runs:trigger", "runs:read"] });
    expect(listed.lastUsedAt).not.toBeNull();

    const { rows } = await getPool().query(`SELECT after FROM audit_events WHERE action = 'token.create' AND target_id = $1`, [
      res.body.token.id,
    ]);
    expect(rows[0].after).toMatchObject({ team: "default", scopes: ["runs:trigger", "runs:read"] });
    expect(JSON.stringify(rows[0].after)).not.toContain(secret);
  });

  it("refuses a scope above the token's role, an unknown scope and an unknown team, each on its field", async () => {
    const above = await post({ name: "ci", role: "viewer", scopes: ["runs:trigger"] });
    expect(above).toMatchObject({
      status: 422,
      body: { error: { fields: { scopes: expect.stringContaining("runs:trigger needs the operator role") } } },
    });
    const unknown = await post({ name: "ci", role: "viewer", scopes: ["runs:everything"] });
    expect(unknown.status).toBe(422);
    expect(Object.keys(unknown.body.error.fields)[0]).toMatch(/^scopes/);
    const team = await post({ name: "ci", role: "viewer", team: "no-such-team" });
    expect(team).toMatchObject({ status: 422, body: { error: { fields: { team: "There is no team no-such-team." } } } });
  });
});
