// The first admin comes from VIGIL_ADMIN_EMAIL / VIGIL_ADMIN_PASSWORD when no admin exists yet.
// Called at start (scripts/start.ts, e2e setup) and again by the console before the first login,
// so a console started some other way (next start, another host) still gets its admin. Several
// processes may call it at once: an advisory lock makes the check-and-create happen once.
import pg from "pg";
import { getEnv } from "../env";
import { getPool, withTransaction, type Queryable } from "../db/pool";
import { recordAudit } from "../audit/record-audit";
import { systemActor } from "./roles";
import { hashPassword } from "./password";
import { createUserSchema } from "./user-input";
import { insertUser } from "./create-user";

const LOCK_FIRST_ADMIN = 746349;

export type FirstAdminResult = "created" | "promoted" | "exists" | "not_configured";

async function adminExists(db: Queryable): Promise<boolean> {
  const { rows } = await db.query<{ one: 1 }>(`SELECT 1 AS one FROM users WHERE role = 'admin' AND disabled_at IS NULL LIMIT 1`);
  return rows.length > 0;
}

export async function ensureFirstAdmin(
  creds: { email?: string; password?: string } = { email: getEnv().VIGIL_ADMIN_EMAIL, password: getEnv().VIGIL_ADMIN_PASSWORD },
  opts: { pool?: pg.Pool } = {},
): Promise<FirstAdminResult> {
  const pool = opts.pool ?? getPool();
  if (await adminExists(pool)) return "exists";
  if (!creds.email || !creds.password) return "not_configured";
  const parsed = createUserSchema.safeParse({ email: creds.email, password: creds.password, role: "admin", name: "Administrator" });
  if (!parsed.success) {
    const why = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    throw new Error(`VIGIL_ADMIN_EMAIL / VIGIL_ADMIN_PASSWORD cannot make the first admin (${why})`);
  }
  const u = parsed.data;
  const passwordHash = await hashPassword(u.password);
  const actor = systemActor("bootstrap");
  return withTransaction<FirstAdminResult>(async (tx) => {
    await tx.query(`SELECT pg_advisory_xact_lock($1)`, [LOCK_FIRST_ADMIN]);
    if (await adminExists(tx)) return "exists";
    const created = await insertUser(
      tx,
      { email: u.email, name: u.name, passwordHash, role: "admin" },
      { actor, reason: "first admin from VIGIL_ADMIN_EMAIL" },
    );
    if (created) return "created";
    // The email already has an account (e.g. the only admin was disabled): make it an active admin
    // again with the configured password — whoever controls the environment controls the console.
    const { rows: found } = await tx.query<{ id: string; role: string; disabled_at: Date | null }>(
      `SELECT id, role, disabled_at FROM users WHERE email = $1 FOR UPDATE`,
      [u.email],
    );
    const old = found[0]!;
    await tx.query(
      `UPDATE users SET role = 'admin', disabled_at = NULL, password_hash = $2, updated_at = clock_timestamp() WHERE id = $1`,
      [old.id, passwordHash],
    );
    await recordAudit(tx, {
      actor,
      action: "user.role_change",
      targetType: "user",
      targetId: old.id,
      before: { role: old.role, disabled: old.disabled_at !== null },
      after: { role: "admin", disabled: false },
      reason: "no active admin; restored from VIGIL_ADMIN_EMAIL / VIGIL_ADMIN_PASSWORD",
    });
    return "promoted";
  }, pool);
}

let once: Promise<FirstAdminResult> | undefined;

/** For the console's request path: does the work once per process, retries after a failure. */
export function ensureFirstAdminOnce(): Promise<FirstAdminResult> {
  once ??= ensureFirstAdmin().catch((err) => {
    once = undefined;
    throw err;
  });
  return once;
}

/** For launchers that know the database URL but have no pool of their own (npm start, e2e setup). */
export async function ensureFirstAdminAt(url: string, creds?: { email?: string; password?: string }): Promise<FirstAdminResult> {
  const pool = new pg.Pool({ connectionString: url, max: 2, application_name: "vigil-first-admin" });
  try {
    return await ensureFirstAdmin(creds ?? { email: getEnv().VIGIL_ADMIN_EMAIL, password: getEnv().VIGIL_ADMIN_PASSWORD }, { pool });
  } finally {
    await pool.end();
  }
}
