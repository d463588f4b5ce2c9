// What an alert webhook body looks like. "vigil" is Vigil's own JSON (type, deliveryId, attempt, alert);
// "slack" is one line of text in a `text` field, which Slack incoming webhooks and the chat tools that copy
// them (Mattermost, Rocket.Chat, Discord's /slack endpoint, Google Chat) accept and show as a message.
import { z } from "zod";
import { ALERT_KIND_INFO, isAlertKind, type AlertEvent } from "../alert-kinds";
import type { AlertSnapshot } from "../list-alerts";

export const WEBHOOK_FORMATS = ["vigil", "slack"] as const;
export const webhookFormatSchema = z.enum(WEBHOOK_FORMATS, {
  error: 'Webhook format must be "vigil" (Vigil\'s JSON) or "slack" (a text message)',
});
export type WebhookFormat = z.infer<typeof webhookFormatSchema>;

export interface WebhookMessage {
  id: number;
  event: AlertEvent;
  attempt: number;
  alert: AlertSnapshot;
}

// Slack's mrkdwn gives meaning to &, < and >: escape them so a message cannot turn into a link or mention.
const escapeSlack = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** "🔴 Missed opened — nightly-reconcile: the run planned at … never started (critical)". */
export function slackText(m: WebhookMessage): string {
  const a = m.alert;
  const label = isAlertKind(a.kind) ? ALERT_KIND_INFO[a.kind].label : a.kind;
  const icon = m.event === "resolved" ? "✅" : a.severity === "critical" ? "🔴" : "🟠";
  const where = a.scheduleName ? ` — ${a.scheduleName}` : "";
  const state = m.event === "resolved" ? `resolved${a.resolution ? ` (${a.resolution})` : ""}` : "opened";
  return escapeSlack(`${icon} ${label} ${state}${where}: ${a.message} (${a.severity})`);
}

export function webhookBody(m: WebhookMessage, format: WebhookFormat): string {
  if (format === "slack") return JSON.stringify({ text: slackText(m) });
  return JSON.stringify({ type: `alert.${m.event}`, deliveryId: String(m.id), attempt: m.attempt, alert: m.alert });
}
