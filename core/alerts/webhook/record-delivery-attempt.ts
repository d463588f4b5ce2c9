// Records one webhook attempt on its delivery row: the outcome, and either done (delivered /
// failed for good) or the next attempt's time on the database clock. Every attempt is appended
// to alert_deliveries.log, so the alert's page shows the whole history.
import type { Queryable } from "../../db/pool";

export interface DeliveryAttemptOutcome {
  deliveryId: number;
  attempt: number;
  startedAt: Date;
  ok: boolean;
  status: number | null;
  error: string | null;
  durationMs: number;
  /** Jittered delay before the next attempt, if there is one. */
  retryDelayMs: number;
  backoffCeilingMs: number;
  maxAttempts: number;
}

export type DeliveryState = "delivered" | "pending" | "failed";

/** Returns the row's new state, or null when the claim was lost (another worker re-claimed after the lease). */
export async function recordDeliveryAttempt(
  db: Queryable,
  o: DeliveryAttemptOutcome,
): Promise<{ state: DeliveryState; nextAttemptAt: Date } | null> {
  const { rows } = await db.query<{ state: DeliveryState; next_attempt_at: Date }>(
    `UPDATE alert_deliveries SET
        state = CASE WHEN $3 THEN 'delivered' WHEN attempts >= $9 THEN 'failed' ELSE 'pending' END,
        delivered_at = CASE WHEN $3 THEN clock_timestamp() END,
        next_attempt_at = CASE WHEN $3 OR attempts >= $9 THEN clock_timestamp()
                               ELSE clock_timestamp() + $7 * interval '1 millisecond' END,
        last_status = $4,
        last_error = $5,
        log = log || jsonb_build_array(jsonb_strip_nulls(jsonb_build_object(
          'attempt', attempts, 'startedAt', $10::timestamptz, 'finishedAt', clock_timestamp(),
          'status', $4::int, 'error', $5::text, 'durationMs', $6::int,
          'retryInMs', CASE WHEN $3 OR attempts >= $9 THEN NULL ELSE $7::int END,
          'backoffCeilingMs', CASE WHEN $3 OR attempts >= $9 THEN NULL ELSE $8::int END)))
      WHERE id = $1 AND attempts = $2 AND state = 'pending'
     RETURNING state, next_attempt_at`,
    [
      o.deliveryId,
      o.attempt,
      o.ok,
      o.status,
      o.error,
      Math.round(o.durationMs),
      o.retryDelayMs,
      o.backoffCeilingMs,
      o.maxAttempts,
      o.startedAt,
    ],
  );
  return rows[0] ? { state: rows[0].state, nextAttemptAt: rows[0].next_attempt_at } : null;
}
