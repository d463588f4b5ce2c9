// Sends one claimed delivery: builds the body in its format, signs it, POSTs it (or, for an alert channel, sends
// it the channel's way: core/alerts/channels/), records the attempt and, on failure, when the next one is due
// (full-jitter backoff on the database clock). Schedule webhooks and channels share the claim, retry and egress.
import type { Queryable } from "../../db/pool";
import { findAlertChannelRow } from "../channels/alert-channel-store";
import { sendToChannel } from "../channels/send-to-channel";
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
  const sent = d.channelId ? await sendChannelDelivery(db, d, d.channelId, opts) : await sendScheduleWebhook(d, opts);
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

function sendScheduleWebhook(d: ClaimedDelivery, opts: WebhookOptions): Promise<SendResult> {
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
  return sendWebhook(d.url, body, headers, opts.timeoutMs);
}

/** A delivery to an alert channel, sent as the channel is now (deleting a channel drops its queued deliveries). */
async function sendChannelDelivery(db: Queryable, d: ClaimedDelivery, channelId: string, opts: WebhookOptions): Promise<SendResult> {
  const channel = await findAlertChannelRow(db, channelId);
  if (!channel) return { ok: false, status: null, error: "the channel was deleted", durationMs: 0 };
  return sendToChannel(
    db,
    channel,
    { event: d.event, alert: d.alert, dedupeKey: d.dedupeKey, deliveryId: d.id, attempt: d.attempt, claimedAt: d.claimedAt },
    { timeoutMs: opts.timeoutMs, userAgent: opts.userAgent, webhookSecret: opts.secret },
  );
}
