// The accounts API through the real wrapper: cookies, throttling, origin checks, admin management.
import { describe, expect, it } from "vitest";
import { NextRequest } from "next/server";
import { useTestDatabase } from "@/test/db";
import { callRoute } from "@/test/call-route";
import { createTestToken } from "@/test/auth";
import { getPool } from "@/core/db/pool";
import { createUser } from "@/core/auth/create-user";
import { systemActor } from "@/core/auth/roles";
import { POST as loginPost } from "./login/route";
import { POST as logoutPost } from "./logout/route";
import { GET as meGet } from "./me/route";
import { GET as usersGet, POST as usersPost } from "../users/route";
import { PATCH as userPatch } from "../users/[id]/route";
import { GET as tokensGet, POST as tokensPost } from "../tokens/route";
import { DELETE as tokenDelete } from "../tokens/[id]/route";

const db = useTestDatabase("auth_routes");
const noParams = { params: Promise.resolve({}) };

function loginRequest(body: unknown, headers: Record<string, string> = {}, base = "http://localhost:3000") {
  return new NextRequest(`${base}/api/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-forwarded-for": "192.0.2.10", ...headers },
    body: JSON.stringify(body),
  });
}

async function auditCount(action: string): Promise<number> {
  const { rows } = await getPool().query(`SELECT count(*)::int AS n FROM audit_events WHERE action = $1`, [action]);
  return rows[0].n;
}

describe("auth routes", () => {
  it("login sets an httpOnly, SameSite=Lax session cookie that /api/auth/me accepts; logout clears it", async () => {
    await createUser({ email: "viewer@example.com", password: "viewer-password", role: "viewer" }, systemActor("test"));
    const res = await loginPost(loginRequest({ email: "viewer@example.com", password: "viewer-password" }), noParams);
    expect(res.status).toBe(200);
    const setCookie = res.headers.get("set-cookie")!;
    expect(setCookie).toMatch(/^vigil_session=[\w-]{40,};/);
    expect(setCookie).toMatch(/HttpOnly/i);
    expect(setCookie).toMatch(/SameSite=lax/i);
    expect(setCookie).toMatch(/Path=\//);
    expect(setCookie).toMatch(/Max-Age=43200/);
    expect(setCookie).not.toMatch(/Secure/i);
    const cookie = setCookie.split(";")[0]!;

    const me = await callRoute(meGet, { headers: { cookie } });
    expect(me).toMatchObject({ status: 200, body: { actor: { type: "user", label: "viewer@example.com", role: "viewer" } } });

    const out = await logoutPost(
      new NextRequest("http://localhost:3000/api/auth/logout", { method: "POST", headers: { cookie, origin: "http://localhost:3000" } }),
      noParams,
    );
    expect(out.status).toBe(200);
    expect(out.headers.get("set-cookie")).toMatch(/vigil_session=;.*Max-Age=0/i);
    expect((await callRoute(meGet, { headers: { cookie } })).status).toBe(401);
    expect(await auditCount("auth.logout")).toBe(1);
  });

  it("marks the cookie Secure when the request came over https", async () => {
    const res = await loginPost(
      loginRequest({ email: "viewer@example.com", password: "viewer-password" }, {}, "https://localhost:3000"),
      noParams,
    );
    expect(res.headers.get("set-cookie")).toMatch(/; Secure/i);
    // A client's own X-Forwarded-Proto is not a proxy's word (VIGIL_TRUST_PROXY is unset).
    const claimed = await loginPost(
      loginRequest({ email: "viewer@example.com", password: "viewer-password" }, { "x-forwarded-proto": "https" }),
      noParams,
    );
    expect(claimed.headers.get("set-cookie")).not.toMatch(/; Secure/i);
  });

  it("refuses a login posted from another site", async () => {
    const res = await loginPost(
      loginRequest({ email: "viewer@example.com", password: "viewer-password" }, { origin: "https://evil.example" }),
      noParams,
    );
    expect(res.status).toBe(403);
    expect(res.headers.get("set-cookie")).toBeNull();
  });

  it("answers 429 with Retry-After once an (account, address) pair has failed too often; other pairs are not affected", async () => {
    const headers = { "x-forwarded-for": "spoofed.example, 192.0.2.99" };
    const first = await loginPost(loginRequest({ email: "viewer@example.com", password: "wrong-password" }, headers), noParams);
    expect(first.status).toBe(401);
    // The address is the last X-Forwarded-For entry, not what the client wrote first.
    const { rows } = await getPool().query(`SELECT ip FROM login_attempts WHERE email = 'viewer@example.com' AND NOT success`);
    expect(rows).toEqual([{ ip: "192.0.2.99" }]);
    // 9 more failures of that pair (each real one costs a scrypt; the count is what matters), and many from the
    // same address for other accounts.
    await getPool().query(
      `INSERT INTO login_attempts (email, ip, success, at) SELECT 'viewer@example.com', '192.0.2.99', false, clock_timestamp() FROM generate_series(1, 9)`,
    );
    await getPool().query(
      `INSERT INTO login_attempts (email, ip, success, at) SELECT 'u' || g || '@example.com', '192.0.2.99', false, clock_timestamp() FROM generate_series(1, 40) g`,
    );
    const res = await loginPost(loginRequest({ email: "viewer@example.com", password: "viewer-password" }, headers), noParams);
    expect(res.status).toBe(429);
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(30);
    expect((await res.json()).error.code).toBe("rate_limited");
    expect(res.headers.get("set-cookie")).toBeNull();
    // Another address is not affected, and neither is another account from the same address.
    const other = await loginPost(
      loginRequest({ email: "viewer@example.com", password: "viewer-password" }, { "x-forwarded-for": "192.0.2.100" }),
      noParams,
    );
    expect(other.status).toBe(200);
    await createUser({ email: "neighbour@example.com", password: "neighbour-password", role: "viewer" }, systemActor("test"));
    const neighbour = await loginPost(loginRequest({ email: "neighbour@example.com", password: "neighbour-password" }, headers), noParams);
    expect(neighbour.status).toBe(200);
  });

  it("lets an admin create users, change roles, disable and reset passwords — each audited", async () => {
    const admin = await createTestToken(db.url, "admin");
    const created = await callRoute(usersPost, {
      method: "POST",
      token: admin,
      body: { email: "New@Example.com", password: "new-user-password", role: "viewer" },
    });
    expect(created.status).toBe(200);
    expect(created.body.user).toMatchObject({ email: "new@example.com", role: "viewer", disabled: false });
    expect(JSON.stringify(created.body)).not.toMatch(/password/i);
    const id = created.body.user.id;

    const dup = await callRoute(usersPost, {
      method: "POST",
      token: admin,
      body: { email: "new@example.com", password: "new-user-password", role: "viewer" },
    });
    expect(dup).toMatchObject({ status: 409, body: { error: { fields: { email: expect.any(String) } } } });

    const promoted = await callRoute(userPatch, { method: "PATCH", token: admin, params: { id }, body: { role: "operator" } });
    expect(promoted.body.user.role).toBe("operator");
    await callRoute(userPatch, { method: "PATCH", token: admin, params: { id }, body: { password: "a-brand-new-password" } });
    await callRoute(userPatch, { method: "PATCH", token: admin, params: { id }, body: { disabled: true } });
    const list = await callRoute(usersGet, { token: admin });
    expect(list.body.users.find((u: { id: string }) => u.id === id)).toMatchObject({ role: "operator", disabled: true });
    const { rows } = await getPool().query(`SELECT action, before, after, actor FROM audit_events WHERE target_id = $1 ORDER BY id`, [id]);
    expect(rows.map((r) => r.action)).toEqual(["user.create", "user.role_change", "user.password_reset", "user.disable"]);
    expect(rows[1]).toMatchObject({ before: { role: "viewer" }, after: { role: "operator" }, actor: "token:test-admin" });
    expect(JSON.stringify(rows)).not.toContain("a-brand-new-password");
  });

  it("answers 404 for a user id that does not exist or is not an id", async () => {
    const admin = await createTestToken(db.url, "admin");
    const missing = await callRoute(userPatch, {
      method: "PATCH",
      token: admin,
      params: { id: crypto.randomUUID() },
      body: { role: "viewer" },
    });
    expect(missing.status).toBe(404);
    const garbage = await callRoute(userPatch, { method: "PATCH", token: admin, params: { id: "1' OR '1'='1" }, body: { role: "viewer" } });
    expect(garbage.status).toBe(404);
    expect(JSON.stringify(garbage.body)).not.toContain("OR '1'");
  });

  it("creates an API token shown once, lists it by prefix only, and a revoked token stops working", async () => {
    const admin = await createTestToken(db.url, "admin");
    const made = await callRoute(tokensPost, { method: "POST", token: admin, body: { name: "deploy-bot", role: "operator" } });
    expect(made.status).toBe(200);
    const secret: string = made.body.secret;
    expect(secret).toMatch(/^vgl_/);
    const listed = await callRoute(tokensGet, { token: admin });
    const entry = listed.body.tokens.find((t: { name: string }) => t.name === "deploy-bot");
    expect(entry).toMatchObject({ prefix: secret.slice(0, 12), role: "operator", revokedAt: null });
    expect(JSON.stringify(listed.body)).not.toContain(secret);

    expect((await callRoute(meGet, { token: secret })).body.actor).toMatchObject({ type: "token", role: "operator" });
    const { rows } = await getPool().query(`SELECT last_used_at FROM api_tokens WHERE id = $1`, [made.body.token.id]);
    expect(rows[0].last_used_at).not.toBeNull();

    expect((await callRoute(tokenDelete, { method: "DELETE", token: admin, params: { id: made.body.token.id } })).status).toBe(200);
    expect((await callRoute(meGet, { token: secret })).status).toBe(401);
    expect((await callRoute(tokenDelete, { method: "DELETE", token: admin, params: { id: made.body.token.id } })).status).toBe(409);
    expect(await auditCount("token.create")).toBe(1);
    expect(await auditCount("token.revoke")).toBe(1);
  });

  it("a token cannot 'log out' (it has no session) — it is revoked instead", async () => {
    const viewer = await createTestToken(db.url, "viewer");
    expect((await callRoute(logoutPost, { method: "POST", token: viewer })).status).toBe(403);
  });
});
