// Login throttling on the database clock, shared by every console instance: too many failed
// attempts for one account, or from one address, within the window → refuse until the oldest of
// them leaves the window. A successful login clears an account's count.
import type { Queryable } from "../db/pool";

export const LOGIN_WINDOW_SECONDS = 15 * 60;
export const MAX_FAILURES_PER_ACCOUNT = 5;
export const MAX_FAILURES_PER_ADDRESS = 20;

// Advisory lock namespaces: count-then-insert must not interleave, or a parallel burst slips past.
const LOCK_EMAIL = 746347;
const LOCK_ADDRESS = 746348;

export async function lockLoginCounters(tx: Queryable, email: string, ip: string): Promise<void> {
  // Always email before address, so two attempts can never wait on each other in a cycle.
  await tx.query(`SELECT pg_advisory_xact_lock($1, hashtext($2))`, [LOCK_EMAIL, email]);
  await tx.query(`SELECT pg_advisory_xact_lock($1, hashtext($2))`, [LOCK_ADDRESS, ip]);
}

/** Seconds until the next attempt is allowed, or 0 when it is allowed now. */
export async function loginRetryAfterSeconds(tx: Queryable, email: string, ip: string): Promise<number> {
  const { rows } = await tx.query<{ wait: number }>(
    `WITH last_ok AS (
       SELECT max(at) AS at FROM login_attempts WHERE email = $1 AND success
     ),
     account AS (
       SELECT at FROM login_attempts
        WHERE email = $1 AND NOT success
          AND at > clock_timestamp() - make_interval(secs => $3)
          AND at > COALESCE((SELECT at FROM last_ok), '-infinity')
        ORDER BY at DESC OFFSET $4 - 1 LIMIT 1
     ),
     address AS (
       SELECT at FROM login_attempts
        WHERE ip = $2 AND NOT success AND at > clock_timestamp() - make_interval(secs => $3)
        ORDER BY at DESC OFFSET $5 - 1 LIMIT 1
     )
     SELECT GREATEST(0,
              COALESCE(ceil(extract(epoch FROM (SELECT at FROM account) + make_interval(secs => $3) - clock_timestamp())), 0),
              COALESCE(ceil(extract(epoch FROM (SELECT at FROM address) + make_interval(secs => $3) - clock_timestamp())), 0)
            )::int AS wait`,
    [email, ip, LOGIN_WINDOW_SECONDS, MAX_FAILURES_PER_ACCOUNT, MAX_FAILURES_PER_ADDRESS],
  );
  return rows[0]!.wait;
}

/** Recorded as failed up front; the login flips it to success once the password checks out. */
export async function reserveLoginAttempt(tx: Queryable, email: string, ip: string): Promise<string> {
  await tx.query(`DELETE FROM login_attempts WHERE email = $1 AND at < clock_timestamp() - interval '1 day'`, [email]);
  const { rows } = await tx.query<{ id: string | number }>(
    `INSERT INTO login_attempts (email, ip, success, at) VALUES ($1, $2, false, clock_timestamp()) RETURNING id`,
    [email, ip],
  );
  return String(rows[0]!.id);
}

export async function markLoginSucceeded(tx: Queryable, attemptId: string): Promise<void> {
  await tx.query(`UPDATE login_attempts SET success = true WHERE id = $1`, [attemptId]);
}
