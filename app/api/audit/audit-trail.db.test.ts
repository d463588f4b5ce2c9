// The audit trail through the real routes: one row per account action kind with who, what, before,
// after, address and user agent; written in the same transaction as the change, both ways round.
import { beforeAll, describe, expect, it } from "vitest";
import { NextRequest } from "next/server";
import { useTestDatabase } from "@/test/db";
import { createTestToken } from "@/test/auth";
import { callRoute } from "@/test/call-route";
import { getPool } from "@/core/db/pool";
import * as login from "../auth/login/route";
import * as logout from "../auth/logout/route";
import * as users from "../users/route";
import * as user from "../users/[id]/route";
import * as tokens from "../tokens/route";
import * as token from "../tokens/[id]/route";
import * as exportCsv from "./export.csv/route";
import * as schedules from "../schedules/route";
import * as pause from "../schedules/[id]/pause/route";

const db = useTestDatabase("audit_trail");
const client = { "user-agent": "audit-test/1.0", "x-forwarded-for": "198.51.100.23" };
let admin: string;

const rows = async (where = "true", params: unknown[] = []) =>
  (await getPool().query(`SELECT * FROM audit_events WHERE ${where} ORDER BY id`, params)).rows;
const count = async (table: string) => (await getPool().query(`SELECT count(*)::int AS n FROM ${table}`)).rows[0].n as number;

async function signIn(email: string, password: string) {
  const req = new NextRequest("http://localhost:3000/api/auth/login", {
    method: "POST",
    headers: { "content-type": "application/json", ...client },
    body: JSON.stringify({ email, password }),
  });
  return login.POST(req, { params: Promise.resolve({}) });
}

beforeAll(async () => {
  admin = await createTestToken(db.url, "admin");
});

describe("an audit row for each account action", () => {
  it("records user, login, logout and token actions with actor, target, before/after, address and user agent", async () => {
    const h = { headers: client, token: admin };
    const made = await callRoute(users.POST, {
      ...h,
      method: "POST",
      body: { email: "kind@example.com", password: "kind-user-password", role: "viewer" },
    });
    const id = made.body.user.id;
    await callRoute(user.PATCH, { ...h, method: "PATCH", params: { id }, body: { role: "operator" } });
    await callRoute(user.PATCH, { ...h, method: "PATCH", params: { id }, body: { password: "kind-user-password-2" } });
    expect((await signIn("kind@example.com", "wrong-password")).status).toBe(401);
    const ok = await signIn("kind@example.com", "kind-user-password-2");
    const cookie = ok.headers.get("set-cookie")!.split(";")[0]!;
    await logout.POST(
      new NextRequest("http://localhost:3000/api/auth/logout", {
        method: "POST",
        headers: { cookie, origin: "http://localhost:3000", ...client },
      }),
      { params: Promise.resolve({}) },
    );
    await callRoute(user.PATCH, { ...h, method: "PATCH", params: { id }, body: { disabled: true } });
    await callRoute(user.PATCH, { ...h, method: "PATCH", params: { id }, body: { disabled: false } });
    const t = await callRoute(tokens.POST, { ...h, method: "POST", body: { name: "kinds-bot", role: "viewer" } });
    await callRoute(token.DELETE, { ...h, method: "DELETE", params: { id: t.body.token.id } });
    const csv = await exportCsv.GET(
      new NextRequest("http://localhost:3000/api/audit/export.csv?action=user.create", {
        headers: { authorization: `Bearer ${admin}`, ...client },
      }),
      { params: Promise.resolve({}) },
    );
    expect(csv.headers.get("content-type")).toMatch(/^text\/csv/);
    expect(await csv.text()).toContain(",user.create,user,");

    const all = await rows();
    const byAction = (a: string) => all.find((r) => r.action === a);
    const expected: [string, Record<string, unknown>][] = [
      [
        "user.create",
        {
          actor: "token:test-admin",
          actor_type: "token",
          target_type: "user",
          target_id: id,
          after: { email: "kind@example.com", name: "", role: "viewer" },
        },
      ],
      ["user.role_change", { target_id: id, before: { role: "viewer" }, after: { role: "operator" } }],
      ["user.password_reset", { target_id: id, after: { email: "kind@example.com" } }],
      ["auth.login_failure", { actor: "kind@example.com", actor_type: "anonymous", target_id: id, after: { outcome: "wrong_password" } }],
      ["auth.login", { actor: "kind@example.com", actor_type: "user", actor_id: id, target_id: id }],
      ["auth.logout", { actor: "kind@example.com", actor_type: "user", target_id: id }],
      ["user.disable", { before: { disabled: false }, after: { disabled: true } }],
      ["user.enable", { before: { disabled: true }, after: { disabled: false } }],
      [
        "token.create",
        { target_type: "token", target_id: t.body.token.id, after: { name: "kinds-bot", role: "viewer", prefix: t.body.token.prefix } },
      ],
      ["token.revoke", { target_type: "token", target_id: t.body.token.id, before: { revoked: false } }],
      ["audit.export", { target_type: "audit", after: { filter: { action: "user.create" } } }],
    ];
    for (const [action, fields] of expected) {
      expect(byAction(action), action).toMatchObject({ ...fields, ip: "198.51.100.23", user_agent: "audit-test/1.0" });
      expect(byAction(action).at).toBeInstanceOf(Date);
    }
    // Secrets never reach the trail.
    expect(JSON.stringify(all)).not.toMatch(/kind-user-password|wrong-password/);
    expect(JSON.stringify(all)).not.toContain(t.body.secret);
  });

  it("records a rate-limited sign-in as auth.login_blocked", async () => {
    await getPool().query(
      `INSERT INTO login_attempts (email, ip, success, at) SELECT 'blocked@example.com', '198.51.100.23', false, clock_timestamp() FROM generate_series(1, 8)`,
    );
    expect((await signIn("blocked@example.com", "whatever-password")).status).toBe(429);
    expect(await rows("action = 'auth.login_blocked'")).toMatchObject([
      { actor: "blocked@example.com", after: { outcome: "rate_limited" } },
    ]);
  });
});

describe("the audit row and the change it records commit together", () => {
  async function newUser(email: string): Promise<string> {
    const res = await callRoute(users.POST, {
      token: admin,
      method: "POST",
      body: { email, password: "atomic-user-password", role: "viewer" },
    });
    return res.body.user.id;
  }

  it("a failed audit write rolls the role change back", async () => {
    const id = await newUser("atomic1@example.com");
    await getPool().query(`
      CREATE FUNCTION test_refuse_audit() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'audit storage unavailable'; END $$;
      CREATE TRIGGER test_refuse_audit BEFORE INSERT ON audit_events FOR EACH ROW
        WHEN (NEW.action IN ('user.role_change', 'schedule.pause')) EXECUTE FUNCTION test_refuse_audit();`);
    try {
      const res = await callRoute(user.PATCH, { token: admin, method: "PATCH", params: { id }, body: { role: "admin" } });
      expect(res.status).toBe(500);
      expect(res.body.error).toEqual({ code: "internal", message: expect.any(String) });
      expect(JSON.stringify(res.body)).not.toContain("audit storage unavailable");
      const { rows: u } = await getPool().query(`SELECT role FROM users WHERE id = $1`, [id]);
      expect(u[0].role).toBe("viewer");

      // The same holds for an operator action owned by another module: pausing a schedule.
      const operator = await createTestToken(db.url, "operator");
      const s = await callRoute(schedules.POST, {
        token: operator,
        method: "POST",
        body: { name: "atomic-pause", handler: "demo.noop", trigger: { kind: "interval", everySeconds: 60 } },
      });
      expect(s.status).toBe(200);
      const paused = await callRoute(pause.POST, {
        token: operator,
        method: "POST",
        params: { id: s.body.schedule.id },
        body: { reason: "maintenance" },
      });
      expect(paused.status).toBe(500);
      const { rows: sch } = await getPool().query(`SELECT paused_at, enabled FROM schedules WHERE id = $1`, [s.body.schedule.id]);
      expect(sch[0]).toMatchObject({ paused_at: null, enabled: true });
    } finally {
      await getPool().query(`DROP TRIGGER test_refuse_audit ON audit_events; DROP FUNCTION test_refuse_audit();`);
    }
  });

  it("a change that fails at commit leaves no audit row, though the row was written inside the transaction", async () => {
    const id = await newUser("atomic2@example.com");
    const before = await count("audit_events");
    // A deferred check fails at COMMIT — after the update and its audit row were both written.
    await getPool().query(`
      CREATE FUNCTION test_refuse_commit() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'refused at commit'; END $$;
      CREATE CONSTRAINT TRIGGER test_refuse_commit AFTER UPDATE ON users DEFERRABLE INITIALLY DEFERRED
        FOR EACH ROW WHEN (NEW.role = 'operator') EXECUTE FUNCTION test_refuse_commit();`);
    try {
      const res = await callRoute(user.PATCH, { token: admin, method: "PATCH", params: { id }, body: { role: "operator" } });
      expect(res.status).toBe(500);
    } finally {
      await getPool().query(`DROP TRIGGER test_refuse_commit ON users; DROP FUNCTION test_refuse_commit();`);
    }
    expect(await count("audit_events")).toBe(before);
    const { rows: u } = await getPool().query(`SELECT role FROM users WHERE id = $1`, [id]);
    expect(u[0].role).toBe("viewer");
  });

  it("refused changes leave no audit row: unknown user, last admin, duplicate email", async () => {
    const before = await count("audit_events");
    expect(
      (await callRoute(user.PATCH, { token: admin, method: "PATCH", params: { id: crypto.randomUUID() }, body: { role: "admin" } })).status,
    ).toBe(404);
    const { rows: admins } = await getPool().query(`SELECT id FROM users WHERE role = 'admin'`);
    expect(admins).toHaveLength(0); // only tokens are admins here, so make one admin user and try to demote it
    const onlyAdmin = await newUser("only-admin@example.com");
    await callRoute(user.PATCH, { token: admin, method: "PATCH", params: { id: onlyAdmin }, body: { role: "admin" } });
    const mid = await count("audit_events");
    expect(
      (await callRoute(user.PATCH, { token: admin, method: "PATCH", params: { id: onlyAdmin }, body: { role: "viewer" } })).status,
    ).toBe(409);
    expect(
      (
        await callRoute(users.POST, {
          token: admin,
          method: "POST",
          body: { email: "only-admin@example.com", password: "another-password", role: "viewer" },
        })
      ).status,
    ).toBe(409);
    expect(await count("audit_events")).toBe(mid);
    expect(mid - before).toBe(2); // the user.create and role change that did happen
  });
});
