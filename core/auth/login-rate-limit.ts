// Sign-in throttling on the database clock, shared by every console instance. It slows guessing without letting
// anyone lock a person out:
// - Failures count per (account, client address) pair, over the last day and since that pair's last success (a
//   window longer than the longest delay, so a patient attacker's count never drains back to the free tries). The first VIGIL_LOGIN_FREE_FAILURES are free; after that each attempt of the pair must wait, from the
//   pair's last failure, a delay that doubles each time (VIGIL_LOGIN_DELAY_BASE_SECONDS up to
//   VIGIL_LOGIN_DELAY_MAX_SECONDS). An attacker's failures from one address therefore never touch the owner's
//   sign-ins from another address, and many users behind one proxy each have their own pairs.
// - An address with VIGIL_LOGIN_ADDRESS_CEILING failures or more in 15 minutes (any accounts: someone spraying) loses the free
//   failures: every pair it has failed on is delayed from its first failure. A pair with no failure (an account
//   that address has not failed on) is never delayed, so a correct password still signs in; a sprayer therefore
//   still gets one guess per account per address, and that is the price of never locking out the other users
//   behind that address (docs/how-to/sign-in-protection.md).
// There is deliberately no per-account limit across addresses: it is exactly what lets anyone lock an account out.
// The client address is the one api-route.ts's clientInfo resolves (VIGIL_TRUST_PROXY).
import type { Queryable } from "../db/pool";
import { getEnv } from "../env";

/** A pair's failures count this long (login_attempts rows are kept a day: VIGIL_RETENTION_LOGIN_ATTEMPTS_DAYS). */
export const PAIR_WINDOW_SECONDS = 24 * 60 * 60;
/** An address's failures (any accounts) count this long against VIGIL_LOGIN_ADDRESS_CEILING. */
export const ADDRESS_WINDOW_SECONDS = 15 * 60;

export interface LoginThrottleSettings {
  freeFailures: number;
  delayBaseSeconds: number;
  delayMaxSeconds: number;
  addressCeiling: number;
}

export function loginThrottleSettings(): LoginThrottleSettings {
  const env = getEnv();
  return {
    freeFailures: env.VIGIL_LOGIN_FREE_FAILURES,
    delayBaseSeconds: env.VIGIL_LOGIN_DELAY_BASE_SECONDS,
    delayMaxSeconds: Math.max(env.VIGIL_LOGIN_DELAY_MAX_SECONDS, env.VIGIL_LOGIN_DELAY_BASE_SECONDS),
    addressCeiling: env.VIGIL_LOGIN_ADDRESS_CEILING,
  };
}

/** What the throttle knows about one attempt's pair and address. */
export interface LoginCounts {
  /** Failures of this (account, address) pair in its window, since the pair's last success. */
  pairFailures: number;
  /** Seconds since the pair's last failure (database clock); null without one. */
  secondsSinceLastPairFailure: number | null;
  /** Failures from this address in its window, any account. */
  addressFailures: number;
}

/** The delay the pair must leave after its last failure before its next attempt (0: none). Pure. */
export function loginDelaySeconds(c: LoginCounts, s: LoginThrottleSettings): number {
  if (c.pairFailures === 0) return 0;
  const free = c.addressFailures >= s.addressCeiling ? 0 : s.freeFailures;
  if (c.pairFailures < free) return 0;
  const doublings = Math.min(c.pairFailures - free, 30);
  return Math.min(s.delayBaseSeconds * 2 ** doublings, s.delayMaxSeconds);
}

/** Seconds the attempt must still wait (0: it may go ahead now). Pure. */
export function loginWaitSeconds(c: LoginCounts, s: LoginThrottleSettings): number {
  const delay = loginDelaySeconds(c, s);
  if (delay === 0 || c.secondsSinceLastPairFailure === null) return 0;
  return Math.max(0, Math.ceil(delay - c.secondsSinceLastPairFailure));
}

// Advisory lock namespaces: count-then-insert must not interleave, or a parallel burst slips past.
const LOCK_PAIR = 746347;
const LOCK_ADDRESS = 746348;

export async function lockLoginCounters(tx: Queryable, email: string, ip: string): Promise<void> {
  // Always pair before address, so two attempts can never wait on each other in a cycle.
  await tx.query(`SELECT pg_advisory_xact_lock($1, hashtext($2 || chr(31) || $3))`, [LOCK_PAIR, email, ip]);
  await tx.query(`SELECT pg_advisory_xact_lock($1, hashtext($2))`, [LOCK_ADDRESS, ip]);
}

export async function readLoginCounts(tx: Queryable, email: string, ip: string): Promise<LoginCounts> {
  const { rows } = await tx.query<{ pair_failures: number; since_last: number | null; address_failures: number }>(
    `WITH pair AS (
       SELECT count(*)::int AS n, max(at) AS last FROM login_attempts
        WHERE email = $1 AND ip = $2 AND NOT success
          AND at > clock_timestamp() - make_interval(secs => $3)
          AND at > COALESCE((SELECT max(at) FROM login_attempts WHERE email = $1 AND ip = $2 AND success), '-infinity')
     )
     SELECT pair.n AS pair_failures,
            extract(epoch FROM clock_timestamp() - pair.last)::float8 AS since_last,
            (SELECT count(*)::int FROM login_attempts
              WHERE ip = $2 AND NOT success AND at > clock_timestamp() - make_interval(secs => $4)) AS address_failures
       FROM pair`,
    [email, ip, PAIR_WINDOW_SECONDS, ADDRESS_WINDOW_SECONDS],
  );
  const r = rows[0]!;
  return { pairFailures: r.pair_failures, secondsSinceLastPairFailure: r.since_last, addressFailures: r.address_failures };
}

/** Seconds until the next attempt of this (account, address) pair is allowed, or 0 when it is allowed now. */
export async function loginRetryAfterSeconds(
  tx: Queryable,
  email: string,
  ip: string,
  settings: LoginThrottleSettings = loginThrottleSettings(),
): Promise<number> {
  return loginWaitSeconds(await readLoginCounts(tx, email, ip), settings);
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
