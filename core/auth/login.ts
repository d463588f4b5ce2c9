// Signs a user in: throttle, check the password, open a session, audit — success and failure alike.
// The audit row for a failure names the email that was tried, never the password.
import { z } from "zod";
import { getPool, withTransaction, type Queryable } from "../db/pool";
import { DomainError, TooManyRequestsError, UnauthorizedError } from "../errors";
import { getEnv } from "../env";
import { getOidcSettings } from "./oidc/oidc-settings";
import { recordAudit } from "../audit/record-audit";
import type { Actor, Role } from "./roles";
import { burnPasswordCheck, hashPassword, needsRehash, verifyPassword } from "./password";
import { createSession, type NewSession } from "./sessions";
import { lockLoginCounters, loginRetryAfterSeconds, markLoginSucceeded, reserveLoginAttempt } from "./login-rate-limit";
import type { UserRecord, UserRow } from "./user-record";
import { toUserRecord, USER_COLUMNS } from "./user-record";
import type pg from "pg";

export const loginSchema = z
  .object({
    // Not validated as an email: a typo should get "wrong email or password", not a form error.
    email: z.string().trim().toLowerCase().min(1, "Enter your email.").max(254, "Use at most 254 characters."),
    password: z.string().min(1, "Enter your password.").max(256, "Use at most 256 characters."),
  })
  .strict();
export type LoginInput = z.infer<typeof loginSchema>;

export interface ClientInfo {
  ip?: string | null;
  userAgent?: string | null;
}

type Outcome = "unknown_account" | "wrong_password" | "disabled";

function anonymous(email: string, c: ClientInfo): Actor {
  return { type: "anonymous", id: null, label: email, role: "viewer", ip: c.ip ?? null, userAgent: c.userAgent ?? null };
}

async function auditFailure(db: Queryable, email: string, c: ClientInfo, outcome: Outcome | "rate_limited", userId: string | null) {
  await recordAudit(db, {
    actor: anonymous(email, c),
    action: outcome === "rate_limited" ? "auth.login_blocked" : "auth.login_failure",
    targetType: "user",
    targetId: userId,
    after: { outcome },
  });
}

export async function login(
  input: LoginInput,
  client: ClientInfo,
  opts: { pool?: pg.Pool } = {},
): Promise<{ user: UserRecord; session: NewSession }> {
  if (!getEnv().VIGIL_LOCAL_LOGIN) {
    const sso = getOidcSettings()?.name ?? "single sign-on";
    throw new DomainError(
      403,
      "local_login_disabled",
      `Signing in with a password is switched off on this console (VIGIL_LOCAL_LOGIN=off). Use "Sign in with ${sso}".`,
    );
  }
  const pool = opts.pool ?? getPool();
  const { email, password } = loginSchema.parse(input);
  const ip = client.ip || "unknown";

  const reserved = await withTransaction<{ wait: number } | { attemptId: string }>(async (tx) => {
    await lockLoginCounters(tx, email, ip);
    const wait = await loginRetryAfterSeconds(tx, email, ip);
    if (wait > 0) {
      await auditFailure(tx, email, client, "rate_limited", null);
      return { wait };
    }
    return { attemptId: await reserveLoginAttempt(tx, email, ip) };
  }, pool);
  if ("wait" in reserved) {
    const when = reserved.wait < 120 ? `${reserved.wait} second(s)` : `${Math.ceil(reserved.wait / 60)} minute(s)`;
    throw new TooManyRequestsError(
      `Too many failed sign-in attempts for this account from your address. Try again in ${when}.`,
      reserved.wait,
    );
  }

  const { rows } = await pool.query<UserRow & { password_hash: string | null }>(
    `SELECT ${USER_COLUMNS}, password_hash FROM users WHERE email = $1`,
    [email],
  );
  const row = rows[0];
  // A user created by single sign-on has no password (NULL): the same answer as a wrong one, in the same time.
  const ok = row?.password_hash ? await verifyPassword(password, row.password_hash) : await burnPasswordCheck(password);
  const outcome: Outcome | null = !row ? "unknown_account" : !ok ? "wrong_password" : row.disabled_at ? "disabled" : null;

  if (outcome) {
    await withTransaction((tx) => auditFailure(tx, email, client, outcome, row?.id ?? null), pool);
    throw new UnauthorizedError("The email or password is not right.");
  }

  const user = toUserRecord(row!);
  const upgraded = needsRehash(row!.password_hash!) ? await hashPassword(password) : null;
  const session = await withTransaction(async (tx) => {
    await markLoginSucceeded(tx, reserved.attemptId);
    if (upgraded) await tx.query(`UPDATE users SET password_hash = $2 WHERE id = $1`, [user.id, upgraded]);
    const s = await createSession(tx, user.id, client);
    const actor: Actor = {
      type: "user",
      id: user.id,
      label: user.email,
      role: user.role as Role,
      ip: client.ip ?? null,
      userAgent: client.userAgent ?? null,
    };
    await recordAudit(tx, { actor, action: "auth.login", targetType: "user", targetId: user.id });
    return s;
  }, pool);
  return { user, session };
}
