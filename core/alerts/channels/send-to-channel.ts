// Sends one alert event to one channel: decrypts the channel's secrets from the secret store just for this send,
// builds the type's message and hands it to SMTP or to the egress-checked HTTP sender the webhooks use. The
// outcome's error text is scrubbed of every secret value, so what is recorded, answered and logged holds none.
import type { Queryable } from "../../db/pool";
import { requireSecretKeyring } from "../../env";
import { createRedactor } from "../../secrets/redact-secrets";
import { decryptSecretValue, type EncryptedSecretRow } from "../../secrets/secret-crypto";
import { sendWebhook, type SendResult } from "../webhook/send-webhook";
import { SIGNATURE_HEADER, TIMESTAMP_HEADER, signWebhook } from "../webhook/sign-webhook";
import { webhookBody } from "../webhook/webhook-format";
import type { EmailSettings, PagerdutySettings } from "./alert-channel-types";
import type { AlertChannelRow, ChannelSecretRefs } from "./alert-channel-store";
import { emailHtml, emailSubject, emailText, pagerdutyEvent, teamsMessage, type ChannelMessage } from "./channel-message";
import { sendEmail } from "./send-email";
import type { ChannelSecretField } from "./alert-channel-types";

export interface ChannelSendOptions {
  timeoutMs: number;
  userAgent: string;
  /** Signs "webhook" channel bodies like the schedule webhooks (VIGIL_ALERT_WEBHOOK_SECRET). */
  webhookSecret: string | null;
}

export interface ChannelDelivery extends ChannelMessage {
  deliveryId: number;
  attempt: number;
  /** Database clock at the claim: the signed timestamp. */
  claimedAt: Date;
}

type ChannelSecrets = Partial<Record<ChannelSecretField, string>>;

async function resolveChannelSecrets(db: Queryable, refs: ChannelSecretRefs): Promise<ChannelSecrets> {
  const entries = Object.entries(refs).filter((e): e is [ChannelSecretField, string] => Boolean(e[1]));
  if (entries.length === 0) return {};
  const { rows } = await db.query<EncryptedSecretRow>(
    `SELECT name, ciphertext, iv, auth_tag, key_id FROM secrets WHERE name = ANY($1::text[])`,
    [entries.map((e) => e[1])],
  );
  const keys = requireSecretKeyring();
  const out: ChannelSecrets = {};
  for (const [field, name] of entries) {
    const r = rows.find((x) => x.name === name);
    if (!r) throw new Error(`the channel's ${field} (secret ${name}) is missing from the secret store: set it again on the channel`);
    out[field] = decryptSecretValue(keys, name, { ciphertext: r.ciphertext, iv: r.iv, authTag: r.auth_tag, keyId: r.key_id });
  }
  return out;
}

export async function sendToChannel(
  db: Queryable,
  channel: AlertChannelRow,
  d: ChannelDelivery,
  opts: ChannelSendOptions,
): Promise<SendResult> {
  const started = performance.now();
  let secrets: ChannelSecrets;
  try {
    secrets = await resolveChannelSecrets(db, channel.secret_refs);
  } catch (err) {
    return { ok: false, status: null, error: (err as Error).message.slice(0, 500), durationMs: performance.now() - started };
  }
  const redact = createRedactor(Object.entries(secrets).map(([name, value]) => ({ name: `channel ${name}`, value: value! })));
  const result = await send(channel, d, secrets, opts);
  return { ...result, error: result.error === null ? null : redact(result.error) };
}

function send(channel: AlertChannelRow, d: ChannelDelivery, secrets: ChannelSecrets, opts: ChannelSendOptions): Promise<SendResult> {
  const m: ChannelMessage = { ...d, consoleUrl: (channel.settings.consoleUrl as string | undefined) ?? d.consoleUrl };
  const headers = { "user-agent": opts.userAgent };
  switch (channel.type) {
    case "email":
      return sendEmail(
        channel.settings as EmailSettings,
        secrets.password,
        { subject: emailSubject(m), text: emailText(m), html: emailHtml(m) },
        opts,
      );
    case "pagerduty":
      return sendWebhook(
        (channel.settings as PagerdutySettings).endpoint,
        JSON.stringify(pagerdutyEvent(m, secrets.routingKey!)),
        headers,
        opts.timeoutMs,
      );
    case "teams":
      return sendWebhook(secrets.url!, JSON.stringify(teamsMessage(m)), headers, opts.timeoutMs);
    case "slack":
    case "webhook": {
      const body = webhookBody(
        { id: d.deliveryId, event: d.event, attempt: d.attempt, alert: d.alert },
        channel.type === "slack" ? "slack" : "vigil",
      );
      const timestamp = Math.floor(d.claimedAt.getTime() / 1000);
      const signed: Record<string, string> = {
        ...headers,
        "x-vigil-event": `alert.${d.event}`,
        "x-vigil-delivery": String(d.deliveryId),
        "x-vigil-attempt": String(d.attempt),
        [TIMESTAMP_HEADER]: String(timestamp),
      };
      if (opts.webhookSecret) signed[SIGNATURE_HEADER] = signWebhook(opts.webhookSecret, timestamp, body);
      return sendWebhook(secrets.url!, body, signed, opts.timeoutMs);
    }
  }
}
