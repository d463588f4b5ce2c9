// What each channel type receives for one alert event (pure): an email (subject, plain text, simple HTML), a
// PagerDuty Events API v2 event, a Microsoft Teams message with an Adaptive Card.
import { ALERT_KIND_INFO, isAlertKind, type AlertEvent } from "../alert-kinds";
import type { AlertSnapshot } from "../list-alerts";

export interface ChannelMessage {
  event: AlertEvent;
  alert: AlertSnapshot;
  /** The alert's dedupe key: PagerDuty's dedup_key, so Vigil's resolve resolves the incident. */
  dedupeKey: string;
  /** The console's address, when the channel knows it: links point there. */
  consoleUrl?: string;
}

const kindLabel = (a: AlertSnapshot) => (isAlertKind(a.kind) ? ALERT_KIND_INFO[a.kind].label : a.kind);

function stateWord(m: ChannelMessage): string {
  if (m.event === "resolved") return `resolved${m.alert.resolution ? ` (${m.alert.resolution})` : ""}`;
  if (m.event === "acknowledged") return `acknowledged${m.alert.acknowledgedBy ? ` by ${m.alert.acknowledgedBy}` : ""}`;
  return "opened";
}

/** Where the console shows this alert: its schedule's page, else the alerts page. */
export function alertLink(m: ChannelMessage): string | null {
  if (!m.consoleUrl) return null;
  const base = m.consoleUrl.replace(/\/+$/, "");
  return m.alert.scheduleId ? `${base}/schedules/${m.alert.scheduleId}` : `${base}/alerts`;
}

/** "[Vigil] CRITICAL Missed opened — nightly-reconcile". */
export function emailSubject(m: ChannelMessage): string {
  const a = m.alert;
  return `[Vigil] ${a.severity.toUpperCase()} ${kindLabel(a)} ${m.event === "opened" ? "opened" : m.event}${a.scheduleName ? ` — ${a.scheduleName}` : ""}`;
}

function facts(m: ChannelMessage): [string, string][] {
  const a = m.alert;
  const out: [string, string][] = [
    ["Schedule", a.scheduleName ?? "(none: about Vigil itself)"],
    ["Kind", `${kindLabel(a)} (${a.kind})`],
    ["Severity", a.severity],
    ["State", stateWord(m)],
    ["Opened at", new Date(a.openedAt).toISOString()],
    ["Occurrences", String(a.occurrences)],
  ];
  if (a.runId) out.push(["Run", a.runId]);
  return out;
}

export function emailText(m: ChannelMessage): string {
  const link = alertLink(m);
  return (
    [m.alert.message, "", ...facts(m).map(([k, v]) => `${k}: ${v}`), ...(link ? ["", `Open in Vigil: ${link}`] : [])].join("\n") + "\n"
  );
}

const escapeHtml = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

export function emailHtml(m: ChannelMessage): string {
  const link = alertLink(m);
  const colour = m.event === "resolved" ? "#2e7d32" : m.alert.severity === "critical" ? "#c62828" : "#ef6c00";
  const rows = facts(m)
    .map(([k, v]) => `<tr><th align="left" style="padding:2px 12px 2px 0">${escapeHtml(k)}</th><td>${escapeHtml(v)}</td></tr>`)
    .join("");
  return (
    `<div style="font-family:sans-serif">` +
    `<p style="border-left:4px solid ${colour};padding-left:8px">${escapeHtml(m.alert.message)}</p>` +
    `<table>${rows}</table>` +
    (link ? `<p><a href="${escapeHtml(link)}">Open in Vigil</a></p>` : "") +
    `</div>`
  );
}

const PAGERDUTY_ACTIONS: Record<AlertEvent, "trigger" | "acknowledge" | "resolve"> = {
  opened: "trigger",
  acknowledged: "acknowledge",
  resolved: "resolve",
};

/** An Events API v2 event; only a trigger carries the payload (PagerDuty ignores it on the others). */
export function pagerdutyEvent(m: ChannelMessage, routingKey: string): Record<string, unknown> {
  const action = PAGERDUTY_ACTIONS[m.event];
  const base = { routing_key: routingKey, event_action: action, dedup_key: m.dedupeKey };
  if (action !== "trigger") return base;
  const a = m.alert;
  const link = alertLink(m);
  return {
    ...base,
    payload: {
      summary: `${kindLabel(a)}${a.scheduleName ? ` — ${a.scheduleName}` : ""}: ${a.message}`.slice(0, 1024),
      source: "vigil",
      severity: a.severity === "critical" ? "critical" : "warning",
      timestamp: new Date(a.openedAt).toISOString(),
      component: a.scheduleName ?? "vigil",
      class: a.kind,
      custom_details: Object.fromEntries(facts(m)),
    },
    ...(link ? { links: [{ href: link, text: "Open in Vigil" }] } : {}),
  };
}

/** A Teams incoming-webhook / Workflows message: one Adaptive Card with the facts and a link to the console. */
export function teamsMessage(m: ChannelMessage): Record<string, unknown> {
  const link = alertLink(m);
  const a = m.alert;
  return {
    type: "message",
    attachments: [
      {
        contentType: "application/vnd.microsoft.card.adaptive",
        contentUrl: null,
        content: {
          $schema: "http://adaptivecards.io/schemas/adaptive-card.json",
          type: "AdaptiveCard",
          version: "1.4",
          body: [
            {
              type: "TextBlock",
              size: "Medium",
              weight: "Bolder",
              wrap: true,
              color: m.event === "resolved" ? "Good" : a.severity === "critical" ? "Attention" : "Warning",
              text: `${kindLabel(a)} ${stateWord(m)}${a.scheduleName ? ` — ${a.scheduleName}` : ""}`,
            },
            { type: "TextBlock", wrap: true, text: a.message },
            { type: "FactSet", facts: facts(m).map(([title, value]) => ({ title, value })) },
          ],
          ...(link ? { actions: [{ type: "Action.OpenUrl", title: "Open in Vigil", url: link }] } : {}),
        },
      },
    ],
  };
}
