// How long a session or an API token has left, by the database clock: a change stream opened with them is closed
// when they expire (change-event-stream.ts), not at the stream's own end minutes later.
import type { Queryable } from "../db/pool";
import { sha256Hex, type Credentials } from "./authenticate";

/** Milliseconds until the credentials expire (≤ 0: they have), or null when none are given or they are unknown. */
export async function credentialsExpireInMs(db: Queryable, c: Credentials): Promise<number | null> {
  const [table, secret] = c.bearerToken
    ? (["api_tokens", c.bearerToken] as const)
    : c.sessionToken
      ? (["sessions", c.sessionToken] as const)
      : [null, null];
  if (!table) return null;
  const { rows } = await db.query<{ ms: number }>(
    table === "api_tokens"
      ? `SELECT extract(epoch FROM expires_at - clock_timestamp())::float8 * 1000 AS ms FROM api_tokens WHERE token_hash = $1`
      : `SELECT extract(epoch FROM expires_at - clock_timestamp())::float8 * 1000 AS ms FROM sessions WHERE id = $1`,
    [sha256Hex(secret)],
  );
  return rows[0] ? rows[0].ms : null;
}
