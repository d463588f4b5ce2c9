import { describe, expect, it } from "vitest";
import { useTestDatabase } from "../../test/db";
import { getPool } from "../db/pool";
import { authenticate } from "./authenticate";
import { createUser } from "./create-user";
import { ensureFirstAdmin } from "./ensure-first-admin";
import { login } from "./login";
import { logout } from "./logout";
import { updateUser } from "./update-user";
import { createApiToken } from "./create-api-token";
import { revokeApiToken } from "./revoke-api-token";
import { systemActor } from "./roles";

useTestDatabase("accounts");
const admin = systemActor("test");
const client = { ip: "203.0.113.7", userAgent: "vitest" };

async function auditRows(action: string) {
  const { rows } = await getPool().query(`SELECT * FROM audit_events WHERE action = $1 ORDER BY id`, [action]);
  return rows;
}

describe("accounts", () => {
  it("creates the first admin from the environment once, however often it is asked", async () => {
    const creds = { email: "Root@Example.com ", password: "first-admin-password" };
    const results = await Promise.all([ensureFirstAdmin(creds), ensureFirstAdmin(creds), ensureFirstAdmin(creds)]);
    expect(results.filter((r) => r === "created")).toHaveLength(1);
    const { rows } = await getPool().query(`SELECT email, role FROM users WHERE role = 'admin'`);
    expect(rows).toEqual([{ email: "root@example.com", role: "admin" }]);
    expect(await ensureFirstAdmin(creds)).toBe("exists");
    const [created] = await auditRows("user.create");
    expect(created).toMatchObject({ actor_type: "system", actor: "bootstrap" });
    expect(created.after).toMatchObject({ email: "root@example.com", role: "admin" });
    expect(JSON.stringify(created)).not.toContain("first-admin-password");
  });

  it("signs in with a session that authenticates, and signs out so the session no longer does", async () => {
    await createUser({ email: "ops@example.com", password: "operator-password", role: "operator" }, admin);
    const { user, session } = await login({ email: "OPS@example.com", password: "operator-password" }, client);
    expect(user.role).toBe("operator");
    const actor = await authenticate(getPool(), { sessionToken: session.token });
    expect(actor).toMatchObject({ type: "user", label: "ops@example.com", role: "operator" });
    // Only the hash of the cookie is stored.
    const { rows } = await getPool().query(`SELECT id FROM sessions`);
    expect(rows.map((r) => r.id)).not.toContain(session.token);
    await logout(session.token, actor!);
    expect(await authenticate(getPool(), { sessionToken: session.token })).toBeNull();
    const [loginRow] = await auditRows("auth.login");
    expect(loginRow).toMatchObject({ actor: "ops@example.com", ip: "203.0.113.7", user_agent: "vitest", target_id: user.id });
    expect(await auditRows("auth.logout")).toHaveLength(1);
  });

  it("an expired session no longer authenticates", async () => {
    const { session } = await login({ email: "ops@example.com", password: "operator-password" }, client);
    expect(await authenticate(getPool(), { sessionToken: session.token })).not.toBeNull();
    await getPool().query(`UPDATE sessions SET expires_at = clock_timestamp() - interval '1 second'`);
    expect(await authenticate(getPool(), { sessionToken: session.token })).toBeNull();
  });

  it("audits a failed login under the email tried, without the password, and answers 401", async () => {
    await expect(login({ email: "ops@example.com", password: "not-the-password" }, client)).rejects.toMatchObject({ status: 401 });
    await expect(login({ email: "nobody@example.com", password: "guess-guess" }, client)).rejects.toMatchObject({ status: 401 });
    const rows = await auditRows("auth.login_failure");
    expect(rows.map((r) => [r.actor, r.actor_type, r.after.outcome])).toEqual([
      ["ops@example.com", "anonymous", "wrong_password"],
      ["nobody@example.com", "anonymous", "unknown_account"],
    ]);
    expect(JSON.stringify(rows)).not.toMatch(/not-the-password|guess-guess/);
  });

  it("slows the (account, address) pair that keeps failing, with Retry-After, even for the right password; not other addresses", async () => {
    await createUser({ email: "target@example.com", password: "target-password", role: "viewer" }, admin);
    // Two real failures; the rest of the count inserted (each real one costs a scrypt).
    for (let i = 0; i < 2; i++) {
      await expect(login({ email: "target@example.com", password: `wrong-${i}` }, { ip: "198.51.100.9" })).rejects.toMatchObject({
        status: 401,
      });
    }
    await getPool().query(
      `INSERT INTO login_attempts (email, ip, success, at) SELECT 'target@example.com', '198.51.100.9', false, clock_timestamp() FROM generate_series(1, 8)`,
    );
    const blocked = login({ email: "target@example.com", password: "target-password" }, { ip: "198.51.100.9" });
    await expect(blocked).rejects.toMatchObject({ status: 429 });
    const err = await blocked.catch((e) => e);
    // 10 failures: 5 free, then 2 s doubled 5 times.
    expect(err.retryAfterSeconds).toBeGreaterThan(30);
    expect(err.retryAfterSeconds).toBeLessThanOrEqual(64);
    expect(await auditRows("auth.login_blocked")).toHaveLength(1);
    await expect(login({ email: "target@example.com", password: "target-password" }, { ip: "198.51.100.99" })).resolves.toBeTruthy();
  });

  it("keeps an admin: the last active admin cannot be demoted or disabled", async () => {
    const { rows } = await getPool().query(`SELECT id FROM users WHERE role = 'admin'`);
    await expect(updateUser(rows[0].id, { role: "viewer" }, admin)).rejects.toMatchObject({ status: 409, code: "last_admin" });
    await expect(updateUser(rows[0].id, { disabled: true }, admin)).rejects.toMatchObject({ status: 409 });
    expect(await auditRows("user.role_change")).toHaveLength(0);
  });

  it("disabling a user ends their sessions at once", async () => {
    const { session, user } = await login({ email: "ops@example.com", password: "operator-password" }, client);
    await updateUser(user.id, { disabled: true }, admin);
    expect(await authenticate(getPool(), { sessionToken: session.token })).toBeNull();
    await expect(login({ email: "ops@example.com", password: "operator-password" }, client)).rejects.toMatchObject({ status: 401 });
    const [row] = await auditRows("user.disable");
    expect(row).toMatchObject({ before: { disabled: false }, after: { disabled: true } });
  });

  it("an API token authenticates with its role, records last use, and stops working once revoked", async () => {
    const { token, secret } = await createApiToken({ name: "nightly-ci", role: "operator" }, admin);
    expect(secret.startsWith(token.prefix)).toBe(true);
    const { rows } = await getPool().query(`SELECT token_hash FROM api_tokens WHERE id = $1`, [token.id]);
    expect(rows[0].token_hash).not.toContain(secret);
    expect(await authenticate(getPool(), { bearerToken: secret })).toMatchObject({ type: "token", role: "operator" });
    const { rows: used } = await getPool().query(`SELECT last_used_at FROM api_tokens WHERE id = $1`, [token.id]);
    expect(used[0].last_used_at).not.toBeNull();
    await revokeApiToken(token.id, admin);
    expect(await authenticate(getPool(), { bearerToken: secret })).toBeNull();
    await expect(revokeApiToken(token.id, admin)).rejects.toMatchObject({ status: 409 });
    expect((await auditRows("token.create")).length).toBe(1);
    expect((await auditRows("token.revoke")).length).toBe(1);
  });
});
