// `npm run create-admin` against a real database: creates an admin, and restores access to an
// existing account (the way back in after a lockout) — each step audited as the CLI.
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { useTestDatabase } from "../test/db";
import { getPool } from "../core/db/pool";
import { login } from "../core/auth/login";

const db = useTestDatabase("create_admin");

function run(args: string[], password: string) {
  return spawnSync(process.execPath, ["--import", "tsx", "scripts/create-admin.ts", ...args], {
    env: { ...process.env, DATABASE_URL: db.url, VIGIL_ADMIN_PASSWORD: password, VIGIL_LOG_LEVEL: "warn" },
    encoding: "utf8",
    timeout: 60_000,
  });
}

describe("npm run create-admin", () => {
  it("creates an admin who can sign in", async () => {
    const r = run(["--email", "Ops@Example.com", "--name", "Ops"], "cli-admin-password");
    expect(r.stdout + r.stderr).toContain("created admin ops@example.com");
    expect(r.status).toBe(0);
    const { user } = await login({ email: "ops@example.com", password: "cli-admin-password" }, { ip: "127.0.0.1" });
    expect(user.role).toBe("admin");
  });

  it("makes an existing, disabled account an active admin with a new password", async () => {
    await getPool().query(`UPDATE users SET role = 'viewer', disabled_at = now() WHERE email = 'ops@example.com'`);
    const r = run(["--email", "ops@example.com"], "cli-admin-password-2");
    expect(r.status).toBe(0);
    const { user } = await login({ email: "ops@example.com", password: "cli-admin-password-2" }, { ip: "127.0.0.1" });
    expect(user).toMatchObject({ role: "admin", disabled: false });
    const { rows } = await getPool().query(`SELECT action FROM audit_events WHERE actor = 'cli:create-admin' ORDER BY id`);
    expect(rows.map((x) => x.action)).toEqual(["user.create", "user.role_change", "user.enable", "user.password_reset"]);
  });

  it("refuses a bad email or a short password without touching the database", async () => {
    expect(run(["--email", "not-an-email"], "cli-admin-password").status).toBe(2);
    expect(run(["--email", "x@example.com"], "short").status).toBe(2);
    const { rows } = await getPool().query(`SELECT count(*)::int AS n FROM users`);
    expect(rows[0].n).toBe(1);
  });
});
