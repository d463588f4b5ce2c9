// Creates a user account and records it in the audit trail, in one transaction.
import type { Queryable } from "../db/pool";
import { ConflictError } from "../errors";
import { recordAudit } from "../audit/record-audit";
import type { Actor } from "./roles";
import { hashPassword } from "./password";
import { createUserSchema, type CreateUserInput } from "./user-input";
import { USER_COLUMNS, toUserRecord, type UserRecord, type UserRow } from "./user-record";
import { inTransaction } from "../db/pool";
import { syncDefaultTeamRole } from "../teams/team-members";

/** Inserts a password user and audits it (user.create) in the caller's transaction; null, nothing audited, when the email is taken. */
export async function insertUser(
  tx: Queryable,
  u: { email: string; name: string; passwordHash: string; role: string },
  audit: { actor: Actor; reason: string | null },
): Promise<UserRecord | null> {
  const { rows } = await tx.query<UserRow>(
    `INSERT INTO users (email, name, password_hash, role) VALUES ($1, $2, $3, $4)
     ON CONFLICT (email) DO NOTHING
     RETURNING ${USER_COLUMNS}`,
    [u.email, u.name, u.passwordHash, u.role],
  );
  if (!rows[0]) return null;
  const user = toUserRecord(rows[0]);
  await syncDefaultTeamRole(tx, user.id, user.role);
  await recordAudit(tx, {
    actor: audit.actor,
    action: "user.create",
    targetType: "user",
    targetId: user.id,
    after: { email: user.email, name: user.name, role: user.role },
    reason: audit.reason,
  });
  return user;
}

export async function createUser(
  input: CreateUserInput,
  actor: Actor,
  opts: { db?: Queryable; reason?: string } = {},
): Promise<UserRecord> {
  const { db, reason } = opts;
  const u = createUserSchema.parse(input);
  // Hash outside the transaction: ~300 ms of CPU should not hold a connection and its locks.
  const passwordHash = await hashPassword(u.password);
  return inTransaction({ tx: db }, async (tx) => {
    const user = await insertUser(tx, { email: u.email, name: u.name, passwordHash, role: u.role }, { actor, reason: reason ?? null });
    if (!user)
      throw new ConflictError(`A user with the email ${u.email} already exists.`, "email_taken", {
        email: "This email is already in use.",
      });
    return user;
  });
}
