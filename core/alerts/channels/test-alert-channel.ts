// "Send a test alert": sends a made-up alert through a channel now, from the calling process, and answers what
// happened (delivered, or the error the server gave). No alert row is stored; the attempt is audited with its
// outcome. To PagerDuty the test is triggered and then resolved at once, so it does not stay open as an incident.
import type { Actor } from "../../auth/roles";
import { recordAudit } from "../../audit/record-audit";
import type { Queryable } from "../../db/pool";
import { ALERT_KIND_INFO, type AlertKind } from "../alert-kinds";
import type { AlertSnapshot } from "../list-alerts";
import { getAlertChannelRowOrThrow } from "./alert-channel-store";
import { sendToChannel, type ChannelSendOptions } from "./send-to-channel";

export interface ChannelTestOutcome {
  channelId: string;
  channel: string;
  delivered: boolean;
  /** Why it was not delivered (HTTP status, SMTP answer, egress refusal…), secrets taken out. */
  error: string | null;
  status: number | null;
  durationMs: number;
}

export async function testAlertChannel(db: Queryable, id: string, actor: Actor, opts: ChannelSendOptions): Promise<ChannelTestOutcome> {
  const channel = await getAlertChannelRowOrThrow(db, id);
  const { rows } = await db.query<{ now: Date }>(`SELECT clock_timestamp() AS now`);
  const now = rows[0]!.now;
  const kind = (channel.kinds[0] ?? "failures") as AlertKind;
  const alert: AlertSnapshot = {
    id: "00000000-0000-0000-0000-000000000000",
    kind,
    severity: ALERT_KIND_INFO[kind].severity,
    message: `Test alert from Vigil, sent by ${actor.label} to channel "${channel.name}": if you read this, alerts reach you here.`,
    scheduleId: null,
    scheduleName: "(test alert)",
    runId: null,
    openedAt: now,
    lastSeenAt: now,
    resolvedAt: null,
    resolution: null,
    occurrences: 1,
    acknowledgedAt: null,
    acknowledgedBy: null,
    data: { test: true },
  };
  const dedupeKey = `vigil-test:${channel.id}:${now.getTime()}`;
  const delivery = { alert, dedupeKey, deliveryId: 0, attempt: 1, claimedAt: now };
  let sent = await sendToChannel(db, channel, { ...delivery, event: "opened" }, opts);
  if (sent.ok && channel.type === "pagerduty") {
    const resolved = await sendToChannel(
      db,
      channel,
      { ...delivery, event: "resolved", alert: { ...alert, resolvedAt: now, resolution: "test alert" } },
      opts,
    );
    sent = { ...resolved, durationMs: sent.durationMs + resolved.durationMs };
  }
  const outcome: ChannelTestOutcome = {
    channelId: channel.id,
    channel: channel.name,
    delivered: sent.ok,
    error: sent.error,
    status: sent.status,
    durationMs: Math.round(sent.durationMs),
  };
  await recordAudit(db, {
    actor,
    action: "alert_channel.test",
    targetType: "alert_channel",
    targetId: channel.id,
    after: { channel: channel.name, type: channel.type, delivered: outcome.delivered, error: outcome.error, status: outcome.status },
  });
  return outcome;
}
