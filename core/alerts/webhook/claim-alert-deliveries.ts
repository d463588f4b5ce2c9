// Claims due webhook deliveries for this worker. FOR UPDATE SKIP LOCKED means two workers never
// take the same row; the claim also pushes next_attempt_at out by a lease (longer than the request
// timeout), so the row is not re-claimed while this worker is sending, yet is retried by another
// worker if this one dies mid-send.
import type { Queryable } from "../../db/pool";
import type { AlertEvent } from "../alert-kinds";
import { alertFields, type AlertRow, type AlertSnapshot } from "../list-alerts";
import type { WebhookFormat } from "./webhook-format";

export type { AlertSnapshot };

export interface ClaimedDelivery {
  id: number;
  event: AlertEvent;
  url: string;
  format: WebhookFormat;
  /** The number of this attempt (1 = first). */
  attempt: number;
  /** Set for a delivery to an alert channel (core/alerts/channels/): url is then only a label. */
  channelId: string | null;
  /** The alert's dedupe key (PagerDuty's dedup_key). */
  dedupeKey: string;
  /** Database clock at the claim: the signed timestamp and the attempt's recorded start. */
  claimedAt: Date;
  alert: AlertSnapshot;
}

export interface ClaimLimits {
  /** Free delivery slots in this worker. */
  limit: number;
  leaseMs: number;
  /** At most this many sends per URL at once in this worker, so one slow receiver cannot fill every slot. */
  perUrl: number;
  /** This worker's sends still in progress, per URL: they count against perUrl. */
  inFlightByUrl: ReadonlyMap<string, number>;
}

/** The claimed delivery's columns, then its alert's (ALERT_COLUMNS without the key and the deliveries). */
interface ClaimedDeliveryRow extends Omit<AlertRow, "id" | "dedupe_key" | "deliveries"> {
  id: number;
  alert_id: string;
  event: AlertEvent;
  url: string;
  format: WebhookFormat;
  channel_id: string | null;
  dedupe_key: string;
  attempts: number;
  claimed_at: Date;
}

export async function claimAlertDeliveries(db: Queryable, c: ClaimLimits): Promise<ClaimedDelivery[]> {
  if (c.limit <= 0) return [];
  const { rows } = await db.query<ClaimedDeliveryRow>(
    `WITH ranked AS (
       SELECT d.id, row_number() OVER (PARTITION BY d.url ORDER BY d.next_attempt_at, d.id) AS rn, coalesce(f.n, 0) AS sending
         FROM alert_deliveries d LEFT JOIN unnest($3::text[], $5::int[]) AS f(url, n) ON f.url = d.url
        WHERE d.state = 'pending' AND d.next_attempt_at <= clock_timestamp()),
     due AS (
       SELECT d.id FROM alert_deliveries d JOIN ranked r ON r.id = d.id
        WHERE r.rn <= $4 - r.sending AND d.state = 'pending' AND d.next_attempt_at <= clock_timestamp()
        ORDER BY d.next_attempt_at
        LIMIT $1
        FOR UPDATE OF d SKIP LOCKED),
     claimed AS (
       UPDATE alert_deliveries d
          SET attempts = d.attempts + 1, next_attempt_at = clock_timestamp() + $2 * interval '1 millisecond'
         FROM due WHERE d.id = due.id
       RETURNING d.id, d.alert_id, d.event, d.url, d.format, d.channel_id, d.attempts, clock_timestamp() AS claimed_at)
     SELECT c.*, a.dedupe_key, a.kind, a.severity, a.message, a.schedule_id, s.name AS schedule_name, a.run_id, a.opened_at,
            a.last_seen_at, a.resolved_at, a.resolution, a.occurrences, a.acknowledged_at, a.acknowledged_by, a.data
       FROM claimed c
       JOIN alerts a ON a.id = c.alert_id
       LEFT JOIN schedules s ON s.id = a.schedule_id
      ORDER BY c.id`,
    [c.limit, c.leaseMs, [...c.inFlightByUrl.keys()], c.perUrl, [...c.inFlightByUrl.values()]],
  );
  return rows.map((r) => ({
    id: Number(r.id),
    event: r.event,
    url: r.url,
    format: r.format,
    channelId: r.channel_id,
    dedupeKey: r.dedupe_key,
    attempt: r.attempts,
    claimedAt: r.claimed_at,
    alert: alertFields({ ...r, id: r.alert_id }),
  }));
}
