// Trigger now through the API: a required reason (audited), a payload override checked against the handler's
// schema, and an Idempotency-Key that makes a retried POST return the same run instead of a second one.
import { beforeAll, describe, expect, it } from "vitest";
import { useTestDatabase } from "@/test/db";
import { waitFor } from "@/test/wait-for";
import { createTestToken } from "@/test/auth";
import { callRoute } from "@/test/call-route";
import { getPool } from "@/core/db/pool";
import { verifyAudit } from "@/core/audit/verify-audit";
import { createPgListener } from "@/worker/lib/pg-listener";
import { getLogger } from "@/core/log";
import { jobIdFor } from "@/core/queue/job-id";
import * as schedulesRoute from "../../route";
import * as trigger from "./route";

const db = useTestDatabase("trigger_route");
let operator: string;
let viewer: string;
let scheduleId: string;

const post = (body: unknown, headers: Record<string, string> = {}, token = operator, id = scheduleId) =>
  callRoute(trigger.POST, { method: "POST", token, body, params: { id }, headers });
const q = async (text: string, values: unknown[] = []) => (await getPool().query(text, values)).rows;

beforeAll(async () => {
  operator = await createTestToken(db.url, "operator");
  viewer = await createTestToken(db.url, "viewer");
  const created = await callRoute(schedulesRoute.POST, {
    method: "POST",
    token: operator,
    body: {
      name: "payroll",
      handler: "ledger.post",
      payload: { from: "a", to: "b", amount: 3 },
      trigger: { kind: "cron", cron: "0 3 * * *", timezone: "UTC" },
    },
  });
  expect(created.status).toBe(200);
  scheduleId = created.body.schedule.id;
});

describe("POST /api/schedules/:id/trigger", () => {
  it("needs a reason, refuses a payload the handler would reject, and viewers get 403", async () => {
    const none = await post({});
    expect(none.status).toBe(422);
    expect(none.body.error.fields).toHaveProperty("reason");
    const blank = await post({ reason: "   " });
    expect(blank.status).toBe(422);
    const badPayload = await post({ reason: "fix", payload: { from: "a", to: "a", amount: 0 } });
    expect(badPayload.status).toBe(422);
    expect(Object.keys(badPayload.body.error.fields)).toEqual(expect.arrayContaining(["payload.amount"]));
    const notObject = await post({ reason: "fix", payload: [1, 2] });
    expect(notObject.status).toBe(422);
    expect((await post({ reason: "fix" }, {}, viewer)).status).toBe(403);
    const badKey = await post({ reason: "fix" }, { "idempotency-key": "x".repeat(201) });
    expect(badKey.status).toBe(422);
    expect(badKey.body.error.fields).toHaveProperty("Idempotency-Key");
    expect(await q(`SELECT id FROM runs WHERE schedule_id = $1`, [scheduleId])).toHaveLength(0);
  });

  it("creates one manual run with the payload override, the reason in the trace and the audit", async () => {
    const r = await post({ reason: "finance asked for a rerun of March", payload: { from: "a", to: "c", amount: 9 } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ count: 1, replayed: false });
    const [run] = await q(`SELECT kind, payload, idempotency_key FROM runs WHERE id = $1`, [r.body.runId]);
    expect(run).toMatchObject({ kind: "manual", payload: { from: "a", to: "c", amount: 9 } });
    const [ev] = await q(`SELECT message, data FROM run_events WHERE run_id = $1 AND type = 'planned'`, [r.body.runId]);
    expect(ev.message).toContain("finance asked for a rerun of March");
    const [audit] = await q(`SELECT reason, after FROM audit_events WHERE action = 'schedule.trigger' AND after->>'runId' = $1`, [
      r.body.runId,
    ]);
    expect(audit).toMatchObject({ reason: "finance asked for a rerun of March", after: { payload: { from: "a", to: "c", amount: 9 } } });
  });

  it("a retried POST with the same Idempotency-Key returns the same run; a different body with that key is refused", async () => {
    const headers = { "idempotency-key": "client-retry-1" };
    const body = { reason: "month end", payload: { amount: 5, to: "d", from: "a" } };
    const first = await post(body, headers);
    expect(first.status).toBe(200);
    expect(first.body.replayed).toBe(false);
    // The same request again (keys in another order) — e.g. the client's connection dropped before the answer.
    const again = await post({ payload: { from: "a", to: "d", amount: 5 }, reason: "month end" }, headers);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ runId: first.body.runId, replayed: true });
    const both = await Promise.all([post(body, headers), post(body, headers)]);
    expect(both.map((b) => b.body.runId)).toEqual([first.body.runId, first.body.runId]);
    expect(await q(`SELECT id FROM runs WHERE schedule_id = $1 AND payload->>'to' = 'd'`, [scheduleId])).toHaveLength(1);

    const other = await post({ reason: "month end", payload: { from: "a", to: "d", amount: 6 } }, headers);
    expect(other.status).toBe(422);
    expect(other.body.error.code).toBe("idempotency_key_reused");
    expect(other.body.error.message).toContain(first.body.runId);

    // Keys are per schedule: the same key on another schedule is a new request.
    const second = await callRoute(schedulesRoute.POST, {
      method: "POST",
      token: operator,
      body: { name: "payroll-2", handler: "demo.noop", trigger: { kind: "cron", cron: "0 3 * * *", timezone: "UTC" } },
    });
    const elsewhere = await post({ reason: "month end" }, headers, operator, second.body.schedule.id);
    expect(elsewhere.body).toMatchObject({ replayed: false });
    expect(elsewhere.body.runId).not.toBe(first.body.runId);
    // Concurrent first requests with a fresh key: still one run.
    const race = await Promise.all([1, 2, 3].map(() => post({ reason: "race" }, { "idempotency-key": "race-1" })));
    expect(new Set(race.map((x) => x.body.runId)).size).toBe(1);
    expect(race.filter((x) => x.body.replayed === false)).toHaveLength(1);
    expect(await q(`SELECT count(*)::int AS n FROM audit_events WHERE action = 'schedule.trigger' AND reason = 'race'`)).toEqual([
      { n: 1 },
    ]);
  });

  it("enqueues the run in the request's own statement: queued, planned and enqueued events, its job, one audit row, a NOTIFY to dispatchers", async () => {
    const heard: string[] = [];
    const listener = createPgListener({
      connectionString: db.url,
      channels: ["vigil_due", "vigil_schedules"],
      name: "trigger-route-test",
      log: getLogger(),
      onNotify: (channel, payload) => heard.push(`${channel} ${payload}`),
    });
    await listener.start();
    try {
      const r = await post({ reason: "latency path" });
      expect(r.status).toBe(200);
      const [run] = await q(
        `SELECT state, kind, handler, payload, extract(epoch FROM due_at)::float8 * 1000 AS due_ms, planned_at = due_at AND due_at = enqueued_at AS same
           FROM runs WHERE id = $1`,
        [r.body.runId],
      );
      expect(run).toMatchObject({
        state: "queued",
        kind: "manual",
        handler: "ledger.post",
        payload: { from: "a", to: "b", amount: 3 },
        same: true,
      });
      expect(r.body.plannedAt).toEqual([new Date(run.due_ms).toISOString()]);
      const events = await q(`SELECT type, attempt, data FROM run_events WHERE run_id = $1 ORDER BY id`, [r.body.runId]);
      expect(events.map((e) => e.type)).toEqual(["planned", "enqueued"]);
      expect(events[1].data).toEqual({ dueAt: r.body.plannedAt[0], wake: 0 });
      const jobs = await q(`SELECT name, data, state FROM pgboss.job WHERE id = $1`, [jobIdFor(r.body.runId, 1, 0)]);
      expect(jobs).toEqual([{ name: "vigil-run.ledger.post", data: { runId: r.body.runId, attempt: 1 }, state: "created" }]);
      const audits = await q(`SELECT reason, after FROM audit_events WHERE action = 'schedule.trigger' AND after->>'runId' = $1`, [
        r.body.runId,
      ]);
      expect(audits).toEqual([{ reason: "latency path", after: { runId: r.body.runId, plannedAt: r.body.plannedAt[0] } }]);
      expect((await verifyAudit(getPool())).ok).toBe(true);
      // The due time, the handler and the job: a dispatcher takes that job by key (worker/claim-notified-job.ts).
      const notice = `vigil_due ${Math.round(run.due_ms)} ledger.post ${jobIdFor(r.body.runId, 1, 0)}`;
      await waitFor("the dispatchers' NOTIFY", () => heard.includes(notice) || undefined, { timeoutMs: 5000, intervalMs: 10 });
      // No planner hop: the planners are not woken for it.
      expect(heard.filter((h) => h.startsWith("vigil_schedules"))).toEqual([]);
    } finally {
      await listener.stop();
    }
  });

  it("a schedule edited or deleted between two triggers: the second one follows the edit (its job's queue and expiry), or answers 404", async () => {
    const first = await post({ reason: "warm" });
    expect(first.status).toBe(200);
    // The timeout alone (the job's expiry follows it), then the handler (the job's queue).
    await q(`UPDATE schedules SET timeout_seconds = 66 WHERE id = $1`, [scheduleId]);
    const timed = await post({ reason: "after the timeout edit" });
    const [timedJob] = await q(`SELECT expire_seconds FROM pgboss.job WHERE id = $1`, [jobIdFor(timed.body.runId, 1, 0)]);
    const [{ grace_seconds: grace }] = await q(`SELECT grace_seconds FROM schedules WHERE id = $1`, [scheduleId]);
    expect(timedJob).toEqual({ expire_seconds: 66 + grace + 60 });
    await q(`UPDATE schedules SET handler = 'demo.noop', payload = '{}', timeout_seconds = 77 WHERE id = $1`, [scheduleId]);
    const second = await post({ reason: "after the edit" });
    expect(second.status).toBe(200);
    const [run] = await q(`SELECT handler, timeout_seconds, grace_seconds FROM runs WHERE id = $1`, [second.body.runId]);
    expect(run).toMatchObject({ handler: "demo.noop", timeout_seconds: 77 });
    const [job] = await q(`SELECT name, expire_seconds FROM pgboss.job WHERE id = $1`, [jobIdFor(second.body.runId, 1, 0)]);
    expect(job).toEqual({ name: "vigil-run.demo.noop", expire_seconds: 77 + run.grace_seconds + 60 });
    const count = async () => (await q(`SELECT count(*)::int AS n FROM runs WHERE schedule_id = $1`, [scheduleId]))[0].n;
    const before = await count();
    await q(`UPDATE schedules SET deleted_at = now() WHERE id = $1`, [scheduleId]);
    const gone = await post({ reason: "after the delete" });
    expect(gone.status).toBe(404);
    expect(await count()).toBe(before);
  });
});
