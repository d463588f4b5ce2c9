import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { testPool, useTestDatabase } from "@/test/db";
import { createTestToken } from "@/test/auth";
import { callRoute } from "@/test/call-route";
import { insertAlertSchedule } from "@/test/alert-fixtures";
import { startWebhookReceiver, type WebhookReceiver } from "@/test/webhook-receiver";
import { startSmtpReceiver, type SmtpReceiver } from "@/test/smtp-receiver";
import { alertChannelViewSchema } from "@/core/alerts/channels/alert-channel-types";
import { GET as list, POST as create } from "./route";
import { DELETE as remove, GET as show, PUT as update } from "./[id]/route";
import { POST as sendTest } from "./[id]/test/route";

// Before the console's environment is first read: its secret key, and loopback allowed for the local receivers.
process.env.VIGIL_SECRET_KEY = crypto.randomBytes(32).toString("base64");
process.env.VIGIL_EGRESS_ALLOW = "127.0.0.1";

const db = useTestDatabase("alert_channels_api");
const SMTP_PASSWORD = `smtp-pw-${crypto.randomBytes(8).toString("hex")}`;
const ROUTING_KEY = `R0UT1NG${crypto.randomBytes(12).toString("hex")}`;
let viewer: string;
let operator: string;
let admin: string;
let pool: pg.Pool;
let smtp: SmtpReceiver;
let pagerduty: WebhookReceiver;
const answers: unknown[] = [];

async function call(handler: Parameters<typeof callRoute>[0], token: string, opts: Omit<Parameters<typeof callRoute>[1], "token"> = {}) {
  const res = await callRoute(handler, { ...opts, token });
  answers.push(res.body);
  return res;
}

const emailChannel = (over: Record<string, unknown> = {}) => ({
  name: "ops email",
  type: "email",
  settings: { host: smtp.host, port: smtp.port, user: "vigil", from: "vigil@example.com", to: ["oncall@example.com"] },
  secrets: { password: SMTP_PASSWORD },
  routing: { kinds: ["missed"] },
  ...over,
});

beforeAll(async () => {
  viewer = await createTestToken(db.url, "viewer");
  operator = await createTestToken(db.url, "operator");
  admin = await createTestToken(db.url, "admin");
  pool = testPool(db.url, 2);
  smtp = await startSmtpReceiver({ user: "vigil", password: SMTP_PASSWORD });
  pagerduty = await startWebhookReceiver(() => ({ status: 202, body: '{"status":"success"}' }));
});
afterAll(async () => {
  await smtp.close();
  await pagerduty.close();
  await pool.end();
});

describe("alert channels API", () => {
  let emailId = "";
  let pdId = "";

  it("lets an admin create channels, operators list them, and refuses viewers and operators where it should", async () => {
    expect((await call(list, viewer)).status).toBe(403);
    expect((await call(create, operator, { method: "POST", body: emailChannel() })).status).toBe(403);

    const made = await call(create, admin, { method: "POST", body: emailChannel() });
    expect(made.status).toBe(200);
    expect(made.body.channel).toMatchObject({
      name: "ops email",
      type: "email",
      secrets: { password: true },
      routing: { kinds: ["missed"], scheduleIds: [], tags: [] },
      settings: { port: smtp.port, secure: false },
      enabled: true,
    });
    emailId = made.body.channel.id;
    // The answer is what the route declares for the API contract.
    expect(alertChannelViewSchema.safeParse(made.body.channel).error).toBeUndefined();

    const pd = await call(create, admin, {
      method: "POST",
      body: {
        name: "pager",
        type: "pagerduty",
        settings: { endpoint: pagerduty.url("/v2/enqueue") },
        secrets: { routingKey: ROUTING_KEY },
      },
    });
    expect(pd.status).toBe(200);
    pdId = pd.body.channel.id;

    const listed = await call(list, operator);
    expect(listed.status).toBe(200);
    expect(listed.body.channels.map((c: { name: string }) => c.name)).toEqual(["ops email", "pager"]);
    expect((await call(show, operator, { params: { id: emailId } })).status).toBe(403);
    expect((await call(show, admin, { params: { id: emailId } })).body.channel.name).toBe("ops email");
    expect((await call(remove, operator, { method: "DELETE", params: { id: emailId } })).status).toBe(403);
    expect((await call(sendTest, viewer, { method: "POST", params: { id: emailId } })).status).toBe(403);
  });

  it("refuses bad channels with the field that is wrong", async () => {
    const bad = async (body: unknown) => (await call(create, admin, { method: "POST", body })).body.error;
    expect(await bad({ name: "p2", type: "pagerduty" })).toMatchObject({ fields: { "secrets.routingKey": expect.any(String) } });
    expect(await bad(emailChannel({ name: "e2", settings: { host: "x", from: "vigil@example.com", to: [] } }))).toMatchObject({
      fields: { "settings.to": expect.any(String) },
    });
    expect(await bad(emailChannel({ name: "e3", routing: { kinds: ["sleepy"] } }))).toMatchObject({ code: "validation_failed" });
    expect(await bad(emailChannel({ name: "e4", routing: { scheduleIds: [crypto.randomUUID()] } }))).toMatchObject({
      fields: { "routing.scheduleIds": expect.any(String) },
    });
    expect(await bad({ name: "t", type: "teams", secrets: { url: "not a url" } })).toMatchObject({ code: "validation_failed" });
    expect(await bad({ name: "x", type: "sms" })).toMatchObject({ code: "validation_failed" });
    const dup = await call(create, admin, { method: "POST", body: emailChannel() });
    expect(dup.status).toBe(409);
    expect(dup.body.error.code).toBe("channel_name_taken");
    const retype = await call(update, admin, { method: "PUT", params: { id: emailId }, body: { ...emailChannel(), type: "slack" } });
    expect(retype.status).toBe(422);
    expect((await call(show, admin, { params: { id: crypto.randomUUID() } })).status).toBe(404);
  });

  it("sends a test email through the channel with the stored password and answers delivered", async () => {
    const res = await call(sendTest, operator, { method: "POST", params: { id: emailId } });
    expect(res.status).toBe(200);
    expect(res.body.outcome).toMatchObject({ delivered: true, error: null, channel: "ops email" });
    expect(smtp.messages).toHaveLength(1);
    const m = smtp.messages[0]!;
    expect(m.user).toBe("vigil");
    expect(m.to).toEqual(["oncall@example.com"]);
    expect(m.subject).toBe("[Vigil] CRITICAL Missed opened — (test alert)");
    expect(m.text).toMatch(/Test alert from Vigil/);
    expect(m.raw).not.toContain(SMTP_PASSWORD);
  });

  it("keeps a secret left out of an update, and answers the server's refusal (without the secret) when it is wrong", async () => {
    const s = await insertAlertSchedule(pool, { enabled: false });
    const kept = await call(update, admin, {
      method: "PUT",
      params: { id: emailId },
      body: { ...emailChannel(), secrets: {}, routing: { kinds: ["missed", "late"], scheduleIds: [s.id], tags: ["billing"] } },
    });
    expect(kept.status).toBe(200);
    expect(kept.body.channel.secrets).toEqual({ password: true });
    expect(kept.body.channel.routing).toEqual({ kinds: ["missed", "late"], scheduleIds: [s.id], tags: ["billing"] });
    expect((await call(sendTest, operator, { method: "POST", params: { id: emailId } })).body.outcome.delivered).toBe(true);

    const wrong = `wrong-${SMTP_PASSWORD}`;
    await call(update, admin, { method: "PUT", params: { id: emailId }, body: { ...emailChannel(), secrets: { password: wrong } } });
    const refused = await call(sendTest, operator, { method: "POST", params: { id: emailId } });
    expect(refused.body.outcome.delivered).toBe(false);
    expect(refused.body.outcome.error).toMatch(/auth|login|535/i);
    expect(JSON.stringify(refused.body)).not.toContain(wrong);
    await call(update, admin, { method: "PUT", params: { id: emailId }, body: emailChannel() });
  });

  it("tests PagerDuty with a trigger then a resolve of the same dedup_key, carrying the routing key", async () => {
    const res = await call(sendTest, operator, { method: "POST", params: { id: pdId } });
    expect(res.body.outcome).toMatchObject({ delivered: true, status: 202 });
    const events = pagerduty.received.map((r) => JSON.parse(r.body));
    expect(events.map((e) => e.event_action)).toEqual(["trigger", "resolve"]);
    expect(events[0].routing_key).toBe(ROUTING_KEY);
    expect(events[1].dedup_key).toBe(events[0].dedup_key);
    expect(events[0].payload).toMatchObject({ source: "vigil", severity: "critical", class: "failures" });
  });

  it("an unreachable or refused endpoint is an answer, not an error", async () => {
    const blocked = await call(create, admin, {
      method: "POST",
      body: { name: "blocked", type: "pagerduty", settings: { endpoint: "http://10.255.255.1/x" }, secrets: { routingKey: ROUTING_KEY } },
    });
    const res = await call(sendTest, operator, { method: "POST", params: { id: blocked.body.channel.id } });
    expect(res.status).toBe(200);
    expect(res.body.outcome.delivered).toBe(false);
    expect(res.body.outcome.error).toMatch(/egress refused/);
  });

  it("audits every change and test, and no answer or audit row holds a secret's value", async () => {
    const { rows } = await pool.query<{ action: string; row: string }>(
      `SELECT action, row_to_json(e)::text AS row FROM audit_events e WHERE action LIKE 'alert_channel.%' OR action LIKE 'secret.%' ORDER BY id`,
    );
    const actions = rows.map((r) => r.action);
    for (const a of ["alert_channel.create", "alert_channel.update", "alert_channel.test", "secret.set", "secret.replace"])
      expect(actions).toContain(a);
    for (const r of rows) {
      expect(r.row).not.toContain(SMTP_PASSWORD);
      expect(r.row).not.toContain(ROUTING_KEY);
    }
    const all = JSON.stringify(answers);
    expect(all).not.toContain(SMTP_PASSWORD);
    expect(all).not.toContain(ROUTING_KEY);
    expect(all).not.toMatch(/ALERT_CHANNEL_[0-9A-F]{32}/);
  });

  it("deleting a channel deletes its secrets", async () => {
    const res = await call(remove, admin, { method: "DELETE", params: { id: pdId } });
    expect(res.body).toEqual({ id: pdId, deleted: true });
    const { rows } = await pool.query(`SELECT name FROM secrets WHERE name = $1`, [
      `ALERT_CHANNEL_${pdId.replace(/-/g, "").toUpperCase()}_ROUTING_KEY`,
    ]);
    expect(rows).toHaveLength(0);
    const audit = await pool.query(`SELECT 1 FROM audit_events WHERE action = 'alert_channel.delete' AND target_id = $1`, [pdId]);
    expect(audit.rowCount).toBe(1);
  });
});
