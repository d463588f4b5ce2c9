import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { testPool, useTestDatabase } from "@/test/db";
import { createTestToken } from "@/test/auth";
import { callRoute } from "@/test/call-route";
import { insertAlertSchedule, insertRunRow, insertWorker } from "@/test/alert-fixtures";
import { evaluateAlerts } from "@/core/alerts/evaluate-alerts";
import { startWebhookReceiver, type WebhookReceiver } from "@/test/webhook-receiver";
import { waitFor } from "@/test/wait-for";
import { GET as list } from "./route";
import { GET as summary } from "./summary/route";
import { POST as acknowledge } from "./[id]/acknowledge/route";
import { GET as lateness } from "../schedules/[id]/lateness/route";

const db = useTestDatabase("alerts_api");
let viewer: string;
let operator: string;
let pool: pg.Pool;
let scheduleA: { id: string; name: string };
let scheduleB: { id: string; name: string };
let receiver: WebhookReceiver;

const opts = { deadAfterMs: 10_000, plannerLagThresholdMs: 5000, latenessWindowSeconds: 600, globalWebhookUrl: null };

beforeAll(async () => {
  // The console reads its environment once, at its first request (after this).
  receiver = await startWebhookReceiver(() => 200);
  process.env.VIGIL_ALERT_WEBHOOK_URL = receiver.url("/global");
  process.env.VIGIL_EGRESS_ALLOW = "127.0.0.1"; // the receiver is on loopback, which the egress policy refuses by default
  viewer = await createTestToken(db.url, "viewer");
  operator = await createTestToken(db.url, "operator");
  pool = testPool(db.url, 2);
  await insertWorker(pool, { heartbeatAgoMs: 0 });
  scheduleA = await insertAlertSchedule(pool, { latenessMaxMs: 500, latenessP95SloMs: 300 });
  scheduleB = await insertAlertSchedule(pool, { expectRecordsMin: 1 });
  // A: late runs (one alert), then a missed one; B: a hollow success that a later success clears.
  for (let i = 0; i < 4; i++)
    await insertRunRow(pool, scheduleA.id, {
      state: "succeeded",
      plannedAgoMs: 60_000 - i * 5000,
      startedAgoMs: 58_000 - i * 5000,
      finishedAgoMs: 57_000 - i * 5000,
    });
  await insertRunRow(pool, scheduleA.id, { state: "missed", plannedAgoMs: 20_000 });
  await insertRunRow(pool, scheduleB.id, {
    state: "hollow",
    plannedAgoMs: 30_000,
    startedAgoMs: 29_990,
    finishedAgoMs: 29_000,
    records: 0,
  });
  await insertRunRow(pool, scheduleB.id, {
    state: "succeeded",
    plannedAgoMs: 10_000,
    startedAgoMs: 9_990,
    finishedAgoMs: 9_000,
    records: 5,
  });
  await evaluateAlerts(pool, opts);
});
afterAll(async () => {
  await pool.end();
  await receiver.close();
  delete process.env.VIGIL_ALERT_WEBHOOK_URL;
});

describe("GET /api/alerts", () => {
  it("needs a token", async () => {
    expect((await callRoute(list, { path: "/api/alerts" })).status).toBe(401);
  });

  it("lists open alerts newest first with schedule names; state=all adds the resolved ones", async () => {
    const open = await callRoute(list, { path: "/api/alerts", token: viewer });
    expect(open.status).toBe(200);
    expect(open.body.alerts.map((a: { dedupeKey: string }) => a.dedupeKey).sort()).toEqual(
      [`late:max:${scheduleA.id}`, `late:p95:${scheduleA.id}`, `missed:${scheduleA.id}`].sort(),
    );
    expect(open.body.alerts.every((a: { scheduleName: string }) => a.scheduleName === scheduleA.name)).toBe(true);
    const all = await callRoute(list, { path: "/api/alerts?state=all", token: viewer });
    const hollow = all.body.alerts.find((a: { kind: string }) => a.kind === "hollow");
    expect(hollow).toMatchObject({ scheduleName: scheduleB.name, occurrences: 1 });
    expect(hollow.resolvedAt).not.toBeNull();
    expect(hollow.resolution).toMatch(/succeeded with the expected records/);
  });

  it("filters by schedule and kind, pages with a cursor, and names bad parameters", async () => {
    const b = await callRoute(list, { path: `/api/alerts?state=all&scheduleId=${scheduleB.id}`, token: viewer });
    expect(b.body.alerts).toHaveLength(1);
    const late = await callRoute(list, { path: "/api/alerts?kind=late", token: viewer });
    expect(late.body.alerts).toHaveLength(2);
    const p1 = await callRoute(list, { path: "/api/alerts?state=all&limit=2", token: viewer });
    expect(p1.body.alerts).toHaveLength(2);
    const p2 = await callRoute(list, { path: `/api/alerts?state=all&limit=2&cursor=${p1.body.nextCursor}`, token: viewer });
    expect(p2.body.alerts).toHaveLength(2);
    expect(p2.body.nextCursor).toBeNull();
    expect(new Set([...p1.body.alerts, ...p2.body.alerts].map((a: { id: string }) => a.id)).size).toBe(4);
    for (const [q, field] of [
      ["scheduleId=nope", "scheduleId"],
      ["state=closed", "state"],
      ["kind=boring", "kind"],
      ["limit=0", "limit"],
      ["cursor=zzz", "cursor"],
    ]) {
      const r = await callRoute(list, { path: `/api/alerts?${q}`, token: viewer });
      expect(r.status, q).toBe(400);
      expect(Object.keys(r.body.error.fields)).toEqual([field]);
    }
  });
});

describe("POST /api/alerts/:id/acknowledge", () => {
  const ack = (id: string, token: string, body: Record<string, unknown> = {}) =>
    callRoute(acknowledge, { method: "POST", path: `/api/alerts/${id}/acknowledge`, token, params: { id }, body });

  it("needs the operator role, records who acknowledged, and writes an audit row", async () => {
    const { body } = await callRoute(list, { path: `/api/alerts?kind=missed`, token: viewer });
    const id = body.alerts[0].id;
    const asViewer = await ack(id, viewer);
    expect(asViewer.status).toBe(403);

    const r = await ack(id, operator, { note: "looking into the worker outage" });
    expect(r.status).toBe(200);
    expect(r.body.alert).toMatchObject({ id, acknowledgedBy: "token:test-operator", resolvedAt: null });
    const { rows } = await pool.query(
      `SELECT actor, action, target_type, target_id, reason, before, after FROM audit_events WHERE action = 'alert.acknowledge'`,
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      actor: "token:test-operator",
      target_type: "alert",
      target_id: id,
      reason: "looking into the worker outage",
      before: { acknowledgedAt: null },
    });
    expect(rows[0].after.acknowledgedBy).toBe("token:test-operator");

    const again = await ack(id, operator);
    expect(again.status).toBe(409);
    expect(again.body.error.message).toMatch(/already acknowledged by token:test-operator/);
  });

  it("409 for an alert that already resolved; nothing stored, no audit row", async () => {
    const { rows } = await pool.query<{ id: string }>(
      `SELECT id FROM alerts WHERE resolved_at IS NOT NULL AND acknowledged_at IS NULL LIMIT 1`,
    );
    expect(rows).toHaveLength(1);
    const id = rows[0]!.id;
    const r = await ack(id, operator);
    expect(r.status).toBe(409);
    expect(r.body.error).toMatchObject({ code: "alert_resolved" });
    expect(r.body.error.message).toMatch(/resolved at .*nothing left to acknowledge/);
    const after = await pool.query(`SELECT acknowledged_at FROM alerts WHERE id = $1`, [id]);
    expect(after.rows[0].acknowledged_at).toBeNull();
    const audit = await pool.query(`SELECT 1 FROM audit_events WHERE action = 'alert.acknowledge' AND target_id = $1`, [id]);
    expect(audit.rows).toHaveLength(0);
  });

  it("404 for an unknown alert, 422 for a bad note; nothing stored", async () => {
    const missing = "00000000-0000-4000-8000-000000000000";
    expect((await callRoute(acknowledge, { method: "POST", token: operator, params: { id: missing }, body: {} })).status).toBe(404);
    const { body } = await callRoute(list, { path: `/api/alerts?kind=late&limit=1`, token: viewer });
    const id = body.alerts[0].id;
    const bad = await callRoute(acknowledge, { method: "POST", token: operator, params: { id }, body: { note: "x".repeat(501) } });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.error.fields)).toEqual(["note"]);
    const { rows } = await pool.query(`SELECT acknowledged_at FROM alerts WHERE id = $1`, [id]);
    expect(rows[0].acknowledged_at).toBeNull();
  });
});

describe("GET /api/alerts/summary", () => {
  it("counts open and unacknowledged alerts and names the newest", async () => {
    const r = await callRoute(summary, { path: "/api/alerts/summary", token: viewer });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ open: 3, unacknowledged: 2, critical: 1 });
    expect(r.body.newest.kind).toMatch(/late|missed/);
  });

  it("raises 'no live worker' itself when every worker went silent, and sends its webhook (no alerter is left to)", async () => {
    await pool.query(`UPDATE workers SET heartbeat_at = clock_timestamp() - interval '1 minute'`);
    try {
      const r = await callRoute(summary, { path: "/api/alerts/summary", token: viewer });
      expect(r.body.open).toBe(4);
      expect(r.body.newest).toMatchObject({ kind: "no_worker", severity: "critical" });
      const got = await waitFor("the console to deliver the webhook", () =>
        receiver.received.find((q) => JSON.parse(q.body).alert.kind === "no_worker"),
      );
      expect(JSON.parse(got.body)).toMatchObject({ type: "alert.opened", alert: { kind: "no_worker", severity: "critical" } });
      expect(got.headers["user-agent"]).toBe("vigil-console");
    } finally {
      await pool.query(`UPDATE workers SET heartbeat_at = clock_timestamp()`);
    }
  });
});

describe("GET /api/schedules/:id/lateness", () => {
  it("returns one point per started run, the p95 and the objectives", async () => {
    const r = await callRoute(lateness, { path: `/api/schedules/${scheduleA.id}/lateness`, token: viewer, params: { id: scheduleA.id } });
    expect(r.status).toBe(200);
    expect(r.body.schedule).toMatchObject({ id: scheduleA.id, latenessMaxMs: 500, latenessP95SloMs: 300 });
    expect(r.body.points).toHaveLength(4);
    expect(r.body.points.every((p: { latenessMs: number }) => p.latenessMs === 2000)).toBe(true);
    expect(r.body.p95Ms).toBe(2000);
    // The chart of a schedule younger than its window starts at its creation (nothing of it is older).
    const { rows } = await pool.query<{ created_at: Date }>(`SELECT created_at FROM schedules WHERE id = $1`, [scheduleA.id]);
    expect(r.body.schedule.createdAt).toBe(rows[0]!.created_at.toISOString());
  });

  it("404 for an unknown schedule, 400 for a bad window", async () => {
    const missing = "00000000-0000-4000-8000-000000000000";
    expect((await callRoute(lateness, { token: viewer, params: { id: missing } })).status).toBe(404);
    const bad = await callRoute(lateness, {
      path: `/api/schedules/${scheduleA.id}/lateness?hours=1000`,
      token: viewer,
      params: { id: scheduleA.id },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.fields.hours).toMatch(/at most 168/);
  });
});
