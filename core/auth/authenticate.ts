// Resolves the caller of an API request from its session cookie or bearer token.
import crypto from "node:crypto";
import type { Queryable } from "../db/pool";
import type { Actor, Role } from "./roles";
import { TOKEN_OWNER_ACTIVE_SQL } from "./api-token-record";

export const SESSION_COOKIE = "vigil_session";

export function sha256Hex(value: string): string {
  return crypto.createHash("sha256").update(value).digest("hex");
}

export interface Credentials {
  sessionToken?: string | null;
  bearerToken?: string | null;
  ip?: string | null;
  userAgent?: string | null;
}

/** Returns the actor, or null when the credentials are missing, unknown, expired or revoked. */
export async function authenticate(db: Queryable, c: Credentials): Promise<Actor | null> {
  if (c.bearerToken) {
    const { rows } = await db.query<{ id: string; name: string; role: Role }>(
      // Expired, or its creator disabled or no longer holding the token's role: the token is refused,
      // checked on every call so a change to the account takes effect at once.
      `UPDATE api_tokens t SET last_used_at = clock_timestamp()
        WHERE t.token_hash = $1 AND t.revoked_at IS NULL AND t.expires_at > clock_timestamp() AND ${TOKEN_OWNER_ACTIVE_SQL}
        RETURNING t.id, t.name, t.role`,
      [sha256Hex(c.bearerToken)],
    );
    const t = rows[0];
    return t ? { type: "token", id: t.id, label: `token:${t.name}`, role: t.role, ip: c.ip, userAgent: c.userAgent } : null;
  }
  if (c.sessionToken) {
    const { rows } = await db.query<{ id: string; email: string; role: Role }>(
      `UPDATE sessions s SET last_seen_at = clock_timestamp()
         FROM users u
        WHERE s.id = $1 AND s.user_id = u.id AND s.expires_at > clock_timestamp() AND u.disabled_at IS NULL
        RETURNING u.id, u.email, u.role`,
      [sha256Hex(c.sessionToken)],
    );
    const u = rows[0];
    return u ? { type: "user", id: u.id, label: u.email, role: u.role, ip: c.ip, userAgent: c.userAgent } : null;
  }
  return null;
}
