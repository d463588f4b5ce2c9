// Silencing one alert kind of one schedule: through the real API routes (operator/viewer tokens), audited,
// and what it does to the webhook queue — nothing queued for that kind of that schedule while it holds.
import { beforeAll, describe, expect, it } from "vitest";
import { useTestDatabase } from "@/test/db";
import { createTestToken } from "@/test/auth";
import { callRoute } from "@/test/call-route";
import { insertAlertSchedule } from "@/test/alert-fixtures";
import { getPool } from "@/core/db/pool";
import { enqueueAlertDeliveries } from "@/core/alerts/enqueue-alert-deliveries";
import * as silences from "./[id]/silences/route";
import * as oneSilence from "./[id]/silences/[silenceId]/route";

const db = useTestDatabase("alert_silences");
let operator: string;
let viewer: string;
beforeAll(async () => {
  operator = await createTestToken(db.url, "operator");
  viewer = await createTestToken(db.url, "viewer");
});

const HOOK = "http://127.0.0.1:9/hook";

async function openAlert(scheduleId: string, kind: string): Promise<string> {
  const { rows } = await getPool().query(
    `INSERT INTO alerts (kind, schedule_id, dedupe_key, severity, message, data, last_cause_at)
     VALUES ($2, $1::uuid, $2 || ':' || $1::text || ':' || gen_random_uuid()::text, 'critical', 'test', '{}', now()) RETURNING id`,
    [scheduleId, kind],
  );
  return rows[0].id;
}

/** How many deliveries opening an alert of `kind` on the schedule queues (schedule URL + global URL). */
async function queuedFor(scheduleId: string, kind: string): Promise<number> {
  return enqueueAlertDeliveries(getPool(), [await openAlert(scheduleId, kind)], "opened", "http://127.0.0.1:9/global");
}

const silence = (id: string, body: unknown, token = operator) =>
  callRoute(silences.POST, { method: "POST", token, params: { id }, body, path: `/api/schedules/${id}/silences` });

describe("silencing an alert kind on a schedule", () => {
  it("mutes that kind's webhooks on that schedule only, until ended early; each step is audited", async () => {
    const s = await insertAlertSchedule(getPool(), { enabled: false, webhookUrl: HOOK });
    const other = await insertAlertSchedule(getPool(), { enabled: false, webhookUrl: HOOK });
    expect(await queuedFor(s.id, "missed")).toBe(2);

    const made = await silence(s.id, { kind: "missed", minutes: 60, reason: "vendor maintenance until 14:00" });
    expect(made.status).toBe(200);
    const silenceId = made.body.silence.id as string;
    const untilMs = Date.parse(made.body.silence.until);
    const { rows: clock } = await getPool().query(`SELECT now() AS now`);
    expect(Math.abs(untilMs - (clock[0].now.getTime() + 3_600_000))).toBeLessThan(60_000);

    expect(await queuedFor(s.id, "missed")).toBe(0);
    expect(await queuedFor(s.id, "failures")).toBe(2);
    expect(await queuedFor(other.id, "missed")).toBe(2);

    const listed = await callRoute(silences.GET, { token: viewer, params: { id: s.id } });
    expect(listed.status).toBe(200);
    expect(listed.body.silences.map((x: { id: string }) => x.id)).toEqual([silenceId]);

    const ended = await callRoute(oneSilence.DELETE, { method: "DELETE", token: operator, params: { id: s.id, silenceId } });
    expect(ended.status).toBe(200);
    expect(await queuedFor(s.id, "missed")).toBe(2);
    const again = await callRoute(oneSilence.DELETE, { method: "DELETE", token: operator, params: { id: s.id, silenceId } });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe("silence_ended");

    const { rows: audit } = await getPool().query(
      `SELECT action, reason, after FROM audit_events WHERE target_type = 'schedule' AND target_id = $1 ORDER BY id`,
      [s.id],
    );
    expect(audit.map((r) => r.action)).toEqual(["schedule.alerts_silence", "schedule.alerts_unsilence"]);
    expect(audit[0]).toMatchObject({ reason: "vendor maintenance until 14:00", after: { kind: "missed", minutes: 60, silenceId } });
  });

  it("a silence that ran out no longer mutes", async () => {
    const s = await insertAlertSchedule(getPool(), { enabled: false, webhookUrl: HOOK });
    const made = await silence(s.id, { kind: "late", minutes: 5, reason: "known" });
    expect(await queuedFor(s.id, "late")).toBe(0);
    await getPool().query(`UPDATE alert_silences SET until = now() - interval '1 second' WHERE id = $1`, [made.body.silence.id]);
    expect(await queuedFor(s.id, "late")).toBe(2);
    expect((await callRoute(silences.GET, { token: viewer, params: { id: s.id } })).body.silences).toEqual([]);
  });

  it("refuses viewers, bad input and unknown schedules with 4xx, storing nothing", async () => {
    const s = await insertAlertSchedule(getPool(), { enabled: false });
    const count = async () =>
      (await getPool().query(`SELECT count(*)::int AS n FROM alert_silences WHERE schedule_id = $1`, [s.id])).rows[0].n;
    expect((await silence(s.id, { kind: "missed", minutes: 10, reason: "x" }, viewer)).status).toBe(403);
    for (const [body, field] of [
      [{ kind: "nope", minutes: 10, reason: "x" }, "kind"],
      [{ kind: "missed", minutes: 0, reason: "x" }, "minutes"],
      [{ kind: "missed", minutes: 100_000, reason: "x" }, "minutes"],
      [{ kind: "missed", minutes: 10, reason: "  " }, "reason"],
    ] as const) {
      const res = await silence(s.id, body);
      expect(res.status, JSON.stringify(body)).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expect(res.body.error.fields).toHaveProperty([field]);
    }
    expect(await count()).toBe(0);
    const missing = await silence("00000000-0000-4000-8000-000000000000", { kind: "missed", minutes: 10, reason: "x" });
    expect(missing.status).toBe(404);
  });
});
