// Console sessions live in the database: the cookie holds a random secret, the table holds only
// its SHA-256, so a leaked table does not let anyone sign in.
import crypto from "node:crypto";
import type { Queryable } from "../db/pool";
import { sha256Hex } from "./authenticate";

export const SESSION_TTL_SECONDS = 12 * 60 * 60;

export interface NewSession {
  token: string;
  expiresAt: Date;
}

export async function createSession(
  db: Queryable,
  userId: string,
  client: { ip?: string | null; userAgent?: string | null },
): Promise<NewSession> {
  const token = crypto.randomBytes(32).toString("base64url");
  const { rows } = await db.query<{ expires_at: Date }>(
    `INSERT INTO sessions (id, user_id, expires_at, ip, user_agent)
     VALUES ($1, $2, clock_timestamp() + make_interval(secs => $3), $4, $5)
     RETURNING expires_at`,
    [sha256Hex(token), userId, SESSION_TTL_SECONDS, client.ip ?? null, client.userAgent?.slice(0, 512) ?? null],
  );
  return { token, expiresAt: rows[0]!.expires_at };
}

/** Deletes the session and, while at it, this user's expired ones. Returns false if it was gone. */
export async function deleteSession(db: Queryable, token: string): Promise<{ userId: string } | null> {
  const { rows } = await db.query<{ user_id: string }>(`DELETE FROM sessions WHERE id = $1 RETURNING user_id`, [sha256Hex(token)]);
  const session = rows[0];
  if (!session) return null;
  await db.query(`DELETE FROM sessions WHERE user_id = $1 AND expires_at <= clock_timestamp()`, [session.user_id]);
  return { userId: session.user_id };
}

export interface CookieOptions {
  httpOnly: true;
  sameSite: "lax";
  secure: boolean;
  path: "/";
  maxAge: number;
}

/** Secure when configured (VIGIL_SECURE_COOKIES=true) or when the request itself came over https. */
export function sessionCookieOptions(secure: boolean, maxAge = SESSION_TTL_SECONDS): CookieOptions {
  return { httpOnly: true, sameSite: "lax", secure, path: "/", maxAge };
}
