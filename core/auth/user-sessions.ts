// A user's console sessions: listed for their owner (so a sign-in they do not recognise shows), ended
// one at a time by their owner, or all at once by an admin (a lost laptop, a departing colleague).
// A session is named outside the database by the first 24 hex characters of its id — itself the
// SHA-256 of the cookie — never by the cookie or the full hash.
import { inTransaction, type Queryable } from "../db/pool";
import { NotFoundError } from "../errors";
import { recordAudit } from "../audit/record-audit";
import type { Actor } from "./roles";
import { sha256Hex } from "./authenticate";
import { getUserOrThrow } from "./list-users";

export const SESSION_PUBLIC_ID_LENGTH = 24;

export interface SessionView {
  id: string;
  createdAt: Date;
  lastSeenAt: Date;
  expiresAt: Date;
  ip: string | null;
  userAgent: string | null;
  /** The session this request was made with. */
  current: boolean;
}

export function sessionPublicId(cookieToken: string): string {
  return sha256Hex(cookieToken).slice(0, SESSION_PUBLIC_ID_LENGTH);
}

/** The user's live sessions, most recently seen first. */
export async function listUserSessions(db: Queryable, userId: string, currentCookie: string | null): Promise<SessionView[]> {
  const { rows } = await db.query<{
    id: string;
    created_at: Date;
    last_seen_at: Date;
    expires_at: Date;
    ip: string | null;
    user_agent: string | null;
  }>(
    `SELECT left(id, $2) AS id, created_at, last_seen_at, expires_at, ip, user_agent
       FROM sessions WHERE user_id = $1 AND expires_at > clock_timestamp()
      ORDER BY last_seen_at DESC`,
    [userId, SESSION_PUBLIC_ID_LENGTH],
  );
  const current = currentCookie ? sessionPublicId(currentCookie) : null;
  return rows.map((r) => ({
    id: r.id,
    createdAt: r.created_at,
    lastSeenAt: r.last_seen_at,
    expiresAt: r.expires_at,
    ip: r.ip ?? null,
    userAgent: r.user_agent ?? null,
    current: r.id === current,
  }));
}

/** Ends one of the caller's own sessions; another user's session is "not found", not "forbidden". */
export async function revokeOwnSession(actor: Actor, publicId: string, opts: { db?: Queryable } = {}): Promise<{ id: string }> {
  return inTransaction({ tx: opts.db }, async (tx) => {
    const { rows } = await tx.query<{ user_id: string }>(
      `DELETE FROM sessions WHERE user_id = $1 AND left(id, $3) = $2 RETURNING user_id`,
      [actor.id, publicId, SESSION_PUBLIC_ID_LENGTH],
    );
    if (!rows[0]) throw new NotFoundError("Session", publicId);
    await recordAudit(tx, { actor, action: "session.revoke", targetType: "user", targetId: actor.id, after: { session: publicId } });
    return { id: publicId };
  });
}

/** An admin ends every session of a user: each of their browsers is signed out at its next request. */
export async function endUserSessions(
  userId: string,
  actor: Actor,
  opts: { db?: Queryable; reason?: string } = {},
): Promise<{ ended: number }> {
  const { reason } = opts;
  return inTransaction({ tx: opts.db }, async (tx) => {
    await getUserOrThrow(tx, userId);
    const { rowCount } = await tx.query(`DELETE FROM sessions WHERE user_id = $1`, [userId]);
    const ended = rowCount ?? 0;
    await recordAudit(tx, {
      actor,
      action: "user.sessions_end",
      targetType: "user",
      targetId: userId,
      after: { ended },
      reason: reason ?? null,
    });
    return { ended };
  });
}
