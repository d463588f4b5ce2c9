import type { Queryable } from "../db/pool";
import { NotFoundError } from "../errors";
import { getOidcSettings } from "./oidc/oidc-settings";
import { USER_COLUMNS, toUserRecord, type UserRecord, type UserRow } from "./user-record";

export interface UserListItem extends UserRecord {
  /** Live console sessions: what "End sessions" would sign out. */
  activeSessions: number;
  /** The provider whose claim sets this user's role at each sign-in (an SSO user while OIDC is on): not editable here. */
  roleManagedBy: string | null;
}

export async function listUsers(db: Queryable): Promise<UserListItem[]> {
  const { rows } = await db.query<UserRow & { active_sessions: number }>(
    `SELECT ${USER_COLUMNS},
            (SELECT count(*)::int FROM sessions s WHERE s.user_id = users.id AND s.expires_at > clock_timestamp()) AS active_sessions
       FROM users ORDER BY email`,
  );
  const sso = getOidcSettings();
  return rows.map((r) => ({ ...toUserRecord(r), activeSessions: r.active_sessions, roleManagedBy: r.sso && sso ? sso.name : null }));
}

/** Locks the row when `forUpdate` so a concurrent change cannot interleave. */
export async function getUserOrThrow(db: Queryable, id: string, forUpdate = false): Promise<UserRecord> {
  const { rows } = await db.query<UserRow>(`SELECT ${USER_COLUMNS} FROM users WHERE id = $1 ${forUpdate ? "FOR UPDATE" : ""}`, [id]);
  if (!rows[0]) throw new NotFoundError("User", id);
  return toUserRecord(rows[0]);
}
