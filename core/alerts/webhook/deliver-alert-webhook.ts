// Sends one claimed delivery: builds the body in its format, signs it, POSTs it, records the attempt and,
// on failure, when the next one is due (full-jitter backoff on the database clock).
import type { Queryable } from "../../db/pool";
import type { ClaimedDelivery } from "./claim-alert-deliveries";
import { recordDeliveryAttempt, type DeliveryState } from "./record-delivery-attempt";
import { sendWebhook, type SendResult } from "./send-webhook";
import { SIGNATURE_HEADER, TIMESTAMP_HEADER, signWebhook } from "./sign-webhook";
import { webhookBody } from "./webhook-format";
import { webhookBackoffCeilingMs, webhookRetryDelayMs, type WebhookBackoff } from "./webhook-backoff";

export interface WebhookOptions {
  secret: string | null;
  timeoutMs: number;
  maxAttempts: number;
  backoff: WebhookBackoff;
  userAgent: string;
}

export interface DeliveryReport extends SendResult {
  deliveryId: number;
  attempt: number;
  state: DeliveryState | "lost";
  retryDelayMs: number;
}

export async function deliverAlertWebhook(db: Queryable, d: ClaimedDelivery, opts: WebhookOptions): Promise<DeliveryReport> {
  const body = webhookBody(d, d.format);
  const timestamp = Math.floor(d.claimedAt.getTime() / 1000);
  const headers: Record<string, string> = {
    "user-agent": opts.userAgent,
    "x-vigil-event": `alert.${d.event}`,
    "x-vigil-delivery": String(d.id),
    "x-vigil-attempt": String(d.attempt),
    [TIMESTAMP_HEADER]: String(timestamp),
  };
  if (opts.secret) headers[SIGNATURE_HEADER] = signWebhook(opts.secret, timestamp, body);
  const sent = await sendWebhook(d.url, body, headers, opts.timeoutMs);
  const ceiling = webhookBackoffCeilingMs(d.attempt, opts.backoff);
  const retryDelayMs = sent.ok ? 0 : webhookRetryDelayMs(d.attempt, opts.backoff);
  const recorded = await recordDeliveryAttempt(db, {
    deliveryId: d.id,
    attempt: d.attempt,
    startedAt: d.claimedAt,
    ok: sent.ok,
    status: sent.status,
    error: sent.error,
    durationMs: sent.durationMs,
    retryDelayMs,
    backoffCeilingMs: ceiling,
    maxAttempts: opts.maxAttempts,
  });
  return { ...sent, deliveryId: d.id, attempt: d.attempt, state: recorded?.state ?? "lost", retryDelayMs };
}
