// Alert channels end to end through a real worker: alerts raised by the worker's evaluator reach a real SMTP
// server (the message parsed and read), a fake PagerDuty Events API (trigger → acknowledge → resolve with one
// dedup_key) and a fake Teams webhook (an Adaptive Card); routing keeps what is not routed away; no secret
// reaches the worker's log.
import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { useTestDatabase, testPool } from "../test/db";
import { insertAlertSchedule, insertRunRow } from "../test/alert-fixtures";
import { startWorker, type TestWorker } from "../test/worker-process";
import { startWebhookReceiver, type WebhookReceiver } from "../test/webhook-receiver";
import { startSmtpReceiver, type SmtpReceiver } from "../test/smtp-receiver";
import { waitFor } from "../test/wait-for";
import { systemActor } from "../core/auth/roles";
import { acknowledgeAlert } from "../core/alerts/acknowledge-alert";
import { createAlertChannel } from "../core/alerts/channels/alert-channel-store";
import { channelInputSchema } from "../core/alerts/channels/alert-channel-types";

const SECRET_KEY = crypto.randomBytes(32).toString("base64");
process.env.VIGIL_SECRET_KEY = SECRET_KEY;
const SMTP_PASSWORD = `smtp-pw-${crypto.randomBytes(8).toString("hex")}`;
const ROUTING_KEY = `R0UT1NG${crypto.randomBytes(12).toString("hex")}`;
const TEAMS_TOKEN = `teamstoken${crypto.randomBytes(10).toString("hex")}`;
const CONSOLE = "https://vigil.example.com";

const db = useTestDatabase("alert_channels");
const actor = systemActor("test");
let pool: pg.Pool;
let worker: TestWorker;
let smtp: SmtpReceiver;
let http: WebhookReceiver;

beforeAll(async () => {
  pool = testPool(db.url, 3);
  smtp = await startSmtpReceiver({ user: "vigil", password: SMTP_PASSWORD });
  http = await startWebhookReceiver(() => 202);
  worker = startWorker(db.url, {
    VIGIL_SECRET_KEY: SECRET_KEY,
    VIGIL_ALERT_EVAL_MS: "200",
    VIGIL_ALERT_WEBHOOK_BACKOFF_BASE_MS: "150",
    VIGIL_ALERT_WEBHOOK_TIMEOUT_MS: "5000",
  });
  await worker.workerId();
});
afterAll(async () => {
  await worker.stop();
  await smtp.close();
  await http.close();
  await pool.end();
});

const channel = (input: unknown) => createAlertChannel(channelInputSchema.parse(input), actor);
const email = (name: string, to: string, routing: unknown) => ({
  name,
  type: "email",
  settings: { host: smtp.host, port: smtp.port, user: "vigil", from: "vigil@example.com", to: [to], consoleUrl: CONSOLE },
  secrets: { password: SMTP_PASSWORD },
  routing,
});

/** A missed occurrence on a disabled schedule (the planner leaves it alone) opens a "missed" alert. */
async function causeMissedAlert(tags: string[] = []): Promise<{ id: string; name: string; alertId: string }> {
  const s = await insertAlertSchedule(pool, { enabled: false });
  await pool.query(`UPDATE schedules SET tags = $2 WHERE id = $1`, [s.id, tags]);
  await insertRunRow(pool, s.id, { state: "missed", plannedAgoMs: 5000 });
  const alertId = await waitFor("the missed alert to open", async () => {
    const { rows } = await pool.query(`SELECT id FROM alerts WHERE schedule_id = $1 AND kind = 'missed'`, [s.id]);
    return rows[0]?.id as string | undefined;
  });
  return { ...s, alertId };
}

describe("alert channels (a real worker, a real SMTP server, fake PagerDuty and Teams)", () => {
  it("emails an alert routed by kind and tag, and queues nothing for channels whose routing does not take it", async () => {
    const routed = await channel(email("billing email", "billing@example.com", { kinds: ["missed"], tags: ["billing"] }));
    const otherKind = await channel(email("hollow only", "hollow@example.com", { kinds: ["hollow"] }));
    const otherTag = await channel(email("payments only", "payments@example.com", { tags: ["payments"] }));
    const s = await causeMissedAlert(["billing", "nightly"]);

    const m = await waitFor("the alert email", async () => smtp.messages.find((x) => x.to.includes("billing@example.com")), {
      timeoutMs: 30_000,
    });
    expect(m.user).toBe("vigil");
    expect(m.subject).toBe(`[Vigil] CRITICAL Missed opened — ${s.name}`);
    expect(m.text).toContain(`Schedule: ${s.name}`);
    expect(m.text).toMatch(/never started/);
    expect(m.text).toContain(`Open in Vigil: ${CONSOLE}/schedules/${s.id}`);
    expect(m.html).toContain(`href="${CONSOLE}/schedules/${s.id}"`);
    expect(m.raw).not.toContain(SMTP_PASSWORD);

    // The message arrives before the worker hears the server's 250 and records it: wait for the record.
    const rows = await waitFor("the email delivery to be recorded", async () => {
      const { rows } = await pool.query<{ channel_id: string; state: string; url: string }>(
        `SELECT channel_id, state, url FROM alert_deliveries WHERE alert_id = $1 AND channel_id IS NOT NULL`,
        [s.alertId],
      );
      return rows.every((r) => r.state !== "pending") ? rows : undefined;
    });
    expect(rows).toEqual([{ channel_id: routed.id, state: "delivered", url: "channel:billing email" }]);
    expect(rows.map((r) => r.channel_id)).not.toContain(otherKind.id);
    expect(rows.map((r) => r.channel_id)).not.toContain(otherTag.id);
    expect(smtp.messages.map((x) => x.to[0])).toEqual(["billing@example.com"]);
    await pool.query(`UPDATE alert_channels SET enabled = false`);
  });

  it("PagerDuty gets trigger → acknowledge → resolve with one dedup_key, and Teams an Adaptive Card", async () => {
    await channel({
      name: "pager",
      type: "pagerduty",
      settings: { endpoint: http.url("/v2/enqueue"), consoleUrl: CONSOLE },
      secrets: { routingKey: ROUTING_KEY },
    });
    await channel({ name: "teams", type: "teams", secrets: { url: http.url(`/teams/${TEAMS_TOKEN}`) }, routing: { kinds: ["missed"] } });
    const s = await causeMissedAlert();
    const pd = () => http.received.filter((r) => r.path === "/v2/enqueue").map((r) => JSON.parse(r.body));
    const teams = () => http.received.filter((r) => r.path.startsWith("/teams/")).map((r) => JSON.parse(r.body));

    await waitFor("the PagerDuty trigger and the Teams card", () => pd().length >= 1 && teams().length >= 1, { timeoutMs: 30_000 });
    const trigger = pd()[0];
    const { rows } = await pool.query<{ dedupe_key: string }>(`SELECT dedupe_key FROM alerts WHERE id = $1`, [s.alertId]);
    expect(trigger).toMatchObject({
      routing_key: ROUTING_KEY,
      event_action: "trigger",
      dedup_key: rows[0]!.dedupe_key,
      payload: { source: "vigil", severity: "critical", component: s.name, class: "missed" },
      links: [{ href: `${CONSOLE}/schedules/${s.id}` }],
    });
    expect(trigger.payload.summary).toContain(s.name);

    const card = teams()[0];
    expect(card.type).toBe("message");
    expect(card.attachments[0].contentType).toBe("application/vnd.microsoft.card.adaptive");
    const content = card.attachments[0].content;
    expect(content).toMatchObject({ type: "AdaptiveCard", version: "1.4" });
    expect(content.body[0]).toMatchObject({ type: "TextBlock", text: `Missed opened — ${s.name}`, color: "Attention" });
    expect(content.body[2].type).toBe("FactSet");
    expect(content.body[2].facts).toContainEqual({ title: "Schedule", value: s.name });

    await acknowledgeAlert(pool, s.alertId, actor, "on it");
    await waitFor("the PagerDuty acknowledge", () => pd().length >= 2, { timeoutMs: 30_000 });
    expect(pd()[1]).toEqual({ routing_key: ROUTING_KEY, event_action: "acknowledge", dedup_key: trigger.dedup_key });

    // A later run of the schedule starts: the missed alert resolves in Vigil, and so does the incident.
    await insertRunRow(pool, s.id, { state: "succeeded", plannedAgoMs: 1000, startedAgoMs: 900, finishedAgoMs: 800 });
    await waitFor("the PagerDuty resolve", () => pd().length >= 3, { timeoutMs: 30_000 });
    expect(pd()[2]).toEqual({ routing_key: ROUTING_KEY, event_action: "resolve", dedup_key: trigger.dedup_key });
    await waitFor("the Teams resolved card", () => teams().length >= 2, { timeoutMs: 30_000 });
    expect(teams()).toHaveLength(2); // acknowledging tells PagerDuty only
    expect(teams()[1].attachments[0].content.body[0].text).toMatch(/^Missed resolved/);
    expect(teams()[1].attachments[0].content.body[0].color).toBe("Good");
  });

  it("no channel secret appears in the worker's log or in the delivery rows", async () => {
    const logs = worker.logs.join("\n");
    expect(logs).toContain("alert webhook delivered");
    const { rows } = await pool.query<{ t: string }>(
      `SELECT coalesce(string_agg(row_to_json(d)::text, ''), '') AS t FROM alert_deliveries d`,
    );
    for (const secret of [SMTP_PASSWORD, ROUTING_KEY, TEAMS_TOKEN]) {
      expect(logs).not.toContain(secret);
      expect(rows[0]!.t).not.toContain(secret);
    }
  });
});
