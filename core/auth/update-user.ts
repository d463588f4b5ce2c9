// Changes a user's role, disabled state, password or name; each change is its own audit row,
// written in the same transaction. Vigil never ends up without an active admin. The role of a user who signs in
// through single sign-on is the provider's to set (core/auth/oidc/sign-in-oidc-user.ts), so it is refused here.
import type { Queryable } from "../db/pool";
import { ConflictError } from "../errors";
import { recordAudit } from "../audit/record-audit";
import type { Actor } from "./roles";
import { syncDefaultTeamRole } from "../teams/team-members";
import { hashPassword } from "./password";
import { updateUserSchema, type UpdateUserInput } from "./user-input";
import { USER_COLUMNS, toUserRecord, type UserRecord, type UserRow } from "./user-record";
import { getUserOrThrow } from "./list-users";
import { getOidcSettings } from "./oidc/oidc-settings";
import { inTransaction } from "../db/pool";

export async function hasAnotherActiveAdmin(tx: Queryable, userId: string): Promise<boolean> {
  // Locking every active admin row serialises two admins demoting each other at the same time.
  const { rows } = await tx.query<{ id: string }>(
    `SELECT id FROM users WHERE role = 'admin' AND disabled_at IS NULL ORDER BY id FOR UPDATE`,
  );
  return rows.some((r) => r.id !== userId);
}

async function assertAnotherActiveAdmin(tx: Queryable, userId: string): Promise<void> {
  if (!(await hasAnotherActiveAdmin(tx, userId))) {
    throw new ConflictError("This is the last active admin: make another user admin first.", "last_admin");
  }
}

export async function updateUser(
  id: string,
  input: UpdateUserInput,
  actor: Actor,
  opts: {
    db?: Queryable;
    reason?: string;
    /** The break-glass CLI (create-admin) may set an SSO user's role. */ overrideSsoRole?: boolean;
  } = {},
): Promise<UserRecord> {
  const { db, reason } = opts;
  const change = updateUserSchema.parse(input);
  const passwordHash = change.password !== undefined ? await hashPassword(change.password) : undefined;
  return inTransaction({ tx: db }, async (tx) => {
    const before = await getUserOrThrow(tx, id, true);
    // The provider's claim sets an SSO user's role at each sign-in: an edit here would be silently undone then.
    const sso = before.sso && !opts.overrideSsoRole ? getOidcSettings() : null;
    if (sso && change.role !== undefined && change.role !== before.role) {
      const message = `${before.email} signs in through ${sso.name}, whose ${sso.roleClaim} claim sets the role at each sign-in (VIGIL_OIDC_ROLE_MAP): change their groups at ${sso.name} instead.`;
      throw new ConflictError(message, "sso_managed_role");
    }
    const demotes = change.role !== undefined && change.role !== "admin" && before.role === "admin";
    const disables = change.disabled === true && !before.disabled && before.role === "admin";
    if (demotes || disables) await assertAnotherActiveAdmin(tx, id);

    const { rows } = await tx.query<UserRow>(
      `UPDATE users SET
         role = COALESCE($2, role),
         name = COALESCE($3, name),
         password_hash = COALESCE($4, password_hash),
         disabled_at = CASE WHEN $5::boolean IS NULL THEN disabled_at
                            WHEN $5 THEN COALESCE(disabled_at, clock_timestamp())
                            ELSE NULL END,
         can_run_programs = COALESCE($6, can_run_programs),
         updated_at = clock_timestamp()
       WHERE id = $1
       RETURNING ${USER_COLUMNS}`,
      [id, change.role ?? null, change.name ?? null, passwordHash ?? null, change.disabled ?? null, change.canRunPrograms ?? null],
    );
    const after = toUserRecord(rows[0]!);
    const audit = (action: string, b: unknown, a: unknown) =>
      recordAudit(tx, { actor, action, targetType: "user", targetId: id, before: b, after: a, reason: reason ?? null });

    if (after.role !== before.role) {
      await syncDefaultTeamRole(tx, id, after.role);
      await audit("user.role_change", { role: before.role }, { role: after.role });
    }
    if (after.name !== before.name) await audit("user.rename", { name: before.name }, { name: after.name });
    if (after.canRunPrograms !== before.canRunPrograms) {
      await audit(
        after.canRunPrograms ? "user.program_permission_grant" : "user.program_permission_revoke",
        { canRunPrograms: before.canRunPrograms },
        { canRunPrograms: after.canRunPrograms },
      );
    }
    if (after.disabled !== before.disabled) {
      await audit(after.disabled ? "user.disable" : "user.enable", { disabled: before.disabled }, { disabled: after.disabled });
    }
    if (passwordHash !== undefined) await audit("user.password_reset", undefined, { email: after.email });
    // A disabled account or a reset password ends every session that account had.
    if (after.disabled || passwordHash !== undefined) await tx.query(`DELETE FROM sessions WHERE user_id = $1`, [id]);
    return after;
  });
}
