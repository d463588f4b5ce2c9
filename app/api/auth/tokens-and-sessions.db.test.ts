// Credentials do not outlive their reason: API tokens expire (a default and a maximum lifetime) and stop
// working when their creator is disabled or no longer holds the token's role; a user sees and ends their
// own console sessions, and an admin ends all of a user's sessions at once.
import { describe, expect, it } from "vitest";
import { useTestDatabase } from "../../../test/db";
import { callRoute } from "../../../test/call-route";
import { createTestSession } from "../../../test/auth";
import { getPool } from "@/core/db/pool";
import { createSession } from "@/core/auth/sessions";
import { GET as workersGet } from "../workers/route";
import { GET as tokensGet, POST as tokensPost } from "../tokens/route";
import { PATCH as userPatch } from "../users/[id]/route";
import { GET as usersGet } from "../users/route";
import { DELETE as userSessionsDelete } from "../users/[id]/sessions/route";
import { GET as sessionsGet } from "./sessions/route";
import { DELETE as sessionDelete } from "./sessions/[id]/route";

useTestDatabase("tokens_and_sessions");

const ORIGIN = { origin: "http://localhost:3000" };
const DAY_MS = 86_400_000;

/** A browser's call: the session cookie and the Origin a browser sends with it. */
const asUser = (cookie: string) => ({ cookie, headers: ORIGIN });

async function makeToken(cookie: string, body: Record<string, unknown>) {
  return callRoute(tokensPost, { method: "POST", ...asUser(cookie), body });
}

async function worksWith(token: string): Promise<number> {
  return (await callRoute(workersGet, { token })).status;
}

async function tokenState(adminCookie: string, id: string) {
  const list = await callRoute(tokensGet, asUser(adminCookie));
  return list.body.tokens.find((t: { id: string }) => t.id === id);
}

describe("API token lifetime", () => {
  it("gives a token the default lifetime, honours a shorter one, and refuses one over the maximum", async () => {
    const admin = await createTestSession(getPool().options.connectionString!, "admin");
    const { rows } = await getPool().query(`SELECT clock_timestamp() AS now`);
    const now = (rows[0].now as Date).getTime();

    const plain = await makeToken(admin.cookie, { name: "default-life", role: "viewer" });
    expect(plain.status).toBe(200);
    expect(Math.abs(new Date(plain.body.token.expiresAt).getTime() - (now + 90 * DAY_MS))).toBeLessThan(60_000);
    expect(plain.body.token.state).toBe("active");

    const week = await makeToken(admin.cookie, { name: "one-week", role: "viewer", expiresInDays: 7 });
    expect(Math.abs(new Date(week.body.token.expiresAt).getTime() - (now + 7 * DAY_MS))).toBeLessThan(60_000);

    const tooLong = await makeToken(admin.cookie, { name: "forever", role: "viewer", expiresInDays: 366 });
    expect(tooLong.status).toBe(422);
    expect(tooLong.body.error.fields.expiresInDays).toMatch(/at most 365 days/);
    const zero = await makeToken(admin.cookie, { name: "never", role: "viewer", expiresInDays: 0 });
    expect(zero.status).toBe(422);
    expect(zero.body.error.fields.expiresInDays).toBeTruthy();
  });

  it("refuses an expired token and lists it as expired", async () => {
    const admin = await createTestSession(getPool().options.connectionString!, "admin");
    const made = await makeToken(admin.cookie, { name: "short-lived", role: "viewer", expiresInDays: 1 });
    expect(await worksWith(made.body.secret)).toBe(200);
    await getPool().query(`UPDATE api_tokens SET expires_at = clock_timestamp() - interval '1 second' WHERE id = $1`, [made.body.token.id]);
    expect(await worksWith(made.body.secret)).toBe(401);
    expect((await tokenState(admin.cookie, made.body.token.id)).state).toBe("expired");
  });

  it("records when a token was last used, for the admin page", async () => {
    const admin = await createTestSession(getPool().options.connectionString!, "admin");
    const made = await makeToken(admin.cookie, { name: "used-once", role: "viewer" });
    expect((await tokenState(admin.cookie, made.body.token.id)).lastUsedAt).toBeNull();
    expect(await worksWith(made.body.secret)).toBe(200);
    const used = await tokenState(admin.cookie, made.body.token.id);
    expect(new Date(used.lastUsedAt).getTime()).toBeGreaterThan(new Date(used.createdAt).getTime());
  });

  it("stops a token when its creator is disabled, and while the creator lacks the token's role", async () => {
    const url = getPool().options.connectionString!;
    const creator = await createTestSession(url, "admin");
    const other = await createTestSession(url, "admin");
    const adminToken = (await makeToken(creator.cookie, { name: "creator-admin", role: "admin" })).body;
    const operatorToken = (await makeToken(creator.cookie, { name: "creator-operator", role: "operator" })).body;
    expect(await worksWith(adminToken.secret)).toBe(200);

    const demote = await callRoute(userPatch, {
      method: "PATCH",
      ...asUser(other.cookie),
      params: { id: creator.userId },
      body: { role: "operator" },
    });
    expect(demote.status).toBe(200);
    expect(await worksWith(adminToken.secret)).toBe(401);
    expect(await worksWith(operatorToken.secret)).toBe(200);
    expect((await tokenState(other.cookie, adminToken.token.id)).state).toBe("owner_inactive");

    const disable = await callRoute(userPatch, {
      method: "PATCH",
      ...asUser(other.cookie),
      params: { id: creator.userId },
      body: { disabled: true },
    });
    expect(disable.status).toBe(200);
    expect(await worksWith(operatorToken.secret)).toBe(401);
    expect((await tokenState(other.cookie, operatorToken.token.id)).state).toBe("owner_inactive");
  });
});

describe("console sessions", () => {
  it("lets a user list their own sessions and end one, but not someone else's", async () => {
    const url = getPool().options.connectionString!;
    const me = await createTestSession(url, "viewer");
    const laptop = await createSession(getPool(), me.userId, { ip: "192.0.2.44", userAgent: "Laptop Browser" });
    const stranger = await createTestSession(url, "viewer");

    const listed = await callRoute(sessionsGet, asUser(me.cookie));
    expect(listed.status).toBe(200);
    expect(listed.body.sessions).toHaveLength(2);
    const current = listed.body.sessions.find((s: { current: boolean }) => s.current);
    const other = listed.body.sessions.find((s: { current: boolean }) => !s.current);
    expect(current).toMatchObject({ ip: "127.0.0.1", userAgent: "vitest" });
    expect(other).toMatchObject({ ip: "192.0.2.44", userAgent: "Laptop Browser" });
    expect(other.id).toMatch(/^[0-9a-f]{24}$/);
    // Only a prefix of the hash of the cookie, never the cookie or the whole hash.
    expect(JSON.stringify(listed.body)).not.toContain(laptop.token);

    const notMine = await callRoute(sessionDelete, { method: "DELETE", ...asUser(stranger.cookie), params: { id: other.id } });
    expect(notMine.status).toBe(404);
    expect((await callRoute(sessionsGet, asUser(laptop.token))).status).toBe(200);

    const ended = await callRoute(sessionDelete, { method: "DELETE", ...asUser(me.cookie), params: { id: other.id } });
    expect(ended.status).toBe(200);
    expect((await callRoute(sessionsGet, asUser(laptop.token))).status).toBe(401);
    expect((await callRoute(sessionsGet, asUser(me.cookie))).body.sessions).toHaveLength(1);
    const { rows } = await getPool().query(`SELECT actor, after FROM audit_events WHERE action = 'session.revoke'`);
    expect(rows).toEqual([{ actor: me.email, after: { session: other.id } }]);
  });

  it("lets an admin sign a user out everywhere, shown in the users list", async () => {
    const url = getPool().options.connectionString!;
    const admin = await createTestSession(url, "admin");
    const user = await createTestSession(url, "operator");
    const second = await createSession(getPool(), user.userId, { ip: "192.0.2.45", userAgent: "Phone" });
    const before = (await callRoute(usersGet, asUser(admin.cookie))).body.users.find((u: { id: string }) => u.id === user.userId);
    expect(before.activeSessions).toBe(2);

    const res = await callRoute(userSessionsDelete, { method: "DELETE", ...asUser(admin.cookie), params: { id: user.userId } });
    expect(res).toMatchObject({ status: 200, body: { ended: 2 } });
    expect((await callRoute(sessionsGet, asUser(user.cookie))).status).toBe(401);
    expect((await callRoute(sessionsGet, asUser(second.token))).status).toBe(401);
    const after = (await callRoute(usersGet, asUser(admin.cookie))).body.users.find((u: { id: string }) => u.id === user.userId);
    expect(after.activeSessions).toBe(0);
    const { rows } = await getPool().query(`SELECT actor, target_id, after FROM audit_events WHERE action = 'user.sessions_end'`);
    expect(rows).toEqual([{ actor: admin.email, target_id: user.userId, after: { ended: 2 } }]);

    // Not an admin: refused.
    const operatorCall = await callRoute(userSessionsDelete, { method: "DELETE", ...asUser(second.token), params: { id: admin.userId } });
    expect(operatorCall.status).toBe(401);
  });
});
