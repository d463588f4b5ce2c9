import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import type { PgBoss } from "pg-boss";
import { useTestDatabase, testPool } from "../../test/db";
import { startWorker, type TestWorker } from "../../test/worker-process";
import { waitFor } from "../../test/wait-for";
import { createTestToken } from "../../test/auth";
import { callRoute } from "../../test/call-route";
import { createRun, insertSchedule, runEvents, runState, startTestBoss, waitForWorkerReady } from "../../test/run-fixtures";
import { POST as cancelRoute } from "../../app/api/runs/[id]/cancel/route";
import { GET as getRunRoute } from "../../app/api/runs/[id]/route";

const db = useTestDatabase("exec_timeouts");
let pool: pg.Pool;
let boss: PgBoss;
let worker: TestWorker;
let operator: string;
let viewer: string;

beforeAll(async () => {
  pool = testPool(db.url, 4);
  boss = await startTestBoss(db.url);
  worker = startWorker(db.url, { VIGIL_WORKER_CONCURRENCY: "3", VIGIL_HEARTBEAT_MS: "500" });
  await waitForWorkerReady(worker);
  operator = await createTestToken(db.url, "operator");
  viewer = await createTestToken(db.url, "viewer");
}, 180_000);

afterAll(async () => {
  await worker?.stop();
  await boss?.stop({ graceful: false, close: true });
  await pool?.end();
});

const ended = (id: string, timeoutMs = 20_000) =>
  waitFor(
    `run ${id} to end`,
    async () => {
      const r = await runState(pool, id);
      return ["succeeded", "failed", "hollow", "timed_out", "cancelled", "zombie"].includes(r.state) ? r : null;
    },
    { timeoutMs },
  );

describe("hard timeouts", () => {
  for (const handler of ["demo.hang", "demo.cpu"]) {
    it(`ends ${handler} timed_out within timeout + grace + 1 s, recording each stage, while the worker keeps running other jobs`, async () => {
      const stuck = await insertSchedule(pool, { handler, timeoutSeconds: 2, graceSeconds: 1 });
      const quick = await insertSchedule(pool, { handler: "demo.sleep", payload: { ms: 100, records: 1 } });
      const id = await createRun(pool, boss, stuck);
      await waitFor("the stuck run to start", async () => (await runState(pool, id)).state === "running");
      // While the stuck handler occupies a slot, other runs still start and finish on the same worker.
      const others = [];
      for (let i = 0; i < 4; i++) others.push(await createRun(pool, boss, quick));
      for (const o of others) expect((await ended(o)).state).toBe("succeeded");
      const r = await ended(id);
      expect(r.state).toBe("timed_out");
      const elapsed = r.finished_at.getTime() - r.started_at.getTime();
      expect(elapsed).toBeGreaterThanOrEqual(2000);
      expect(elapsed).toBeLessThanOrEqual(2000 + 1000 + 1000);
      const events = await runEvents(pool, id);
      const types = events.map((e) => e.type);
      expect(types).toEqual(["enqueued", "started", "timed_out", "abort_sent", "terminated", "sessions_terminated", "finished"]);
      const at = Object.fromEntries(events.map((e) => [e.type, e.at.getTime()]));
      expect(at.abort_sent! - at.started!).toBeGreaterThanOrEqual(1900);
      // Terminated after the grace, not before: neither handler stops on its own.
      expect(at.terminated! - at.abort_sent!).toBeGreaterThanOrEqual(900);
      expect(events.find((e) => e.type === "terminated")!.data.handlerStoppedItself).toBe(false);
      const others2 = (await runState(pool, others[3]!)).worker_id;
      expect(others2).toBe(r.worker_id);
    });
  }

  it("retries a timed-out attempt only after the previous one is dead", async () => {
    const s = await insertSchedule(pool, {
      handler: "demo.hang",
      timeoutSeconds: 1,
      graceSeconds: 0,
      retryMaxAttempts: 2,
      retryBaseSeconds: 1,
      retryMaxSeconds: 1,
    });
    const id = await createRun(pool, boss, s);
    const r = await ended(id);
    expect(r.state).toBe("timed_out");
    const { rows } = await pool.query(`SELECT number, state, started_at, finished_at FROM attempts WHERE run_id = $1 ORDER BY number`, [
      id,
    ]);
    expect(rows.map((a) => a.state)).toEqual(["timed_out", "timed_out"]);
    expect(rows[1].started_at.getTime()).toBeGreaterThanOrEqual(rows[0].finished_at.getTime());
  });
});

describe("cancel", () => {
  it("stops a running demo.hang through the API: requested, acknowledged, aborted, killed after the grace, sessions terminated, cancelled", async () => {
    const s = await insertSchedule(pool, { handler: "demo.hang", timeoutSeconds: 60, graceSeconds: 1 });
    const id = await createRun(pool, boss, s);
    await waitFor("the hang to start", async () => (await runState(pool, id)).state === "running");
    const res = await callRoute(cancelRoute as never, { method: "POST", token: operator, params: { id }, body: { reason: "test stop" } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ runId: id, outcome: "cancel_requested" });
    const r = await ended(id, 10_000);
    expect(r.state).toBe("cancelled");
    expect(r.cancel_requested_by).toBe("token:test-operator");
    const events = await runEvents(pool, id);
    expect(events.map((e) => e.type)).toEqual([
      "enqueued",
      "started",
      "cancel_requested",
      "cancel_acknowledged",
      "abort_sent",
      "killed",
      "sessions_terminated",
      "cancelled",
    ]);
    const at = Object.fromEntries(events.map((e) => [e.type, e.at.getTime()]));
    expect(at.killed! - at.cancel_requested!).toBeLessThanOrEqual(1000 + 1000);
    expect(at.cancel_acknowledged! - at.cancel_requested!).toBeLessThan(1000);
    const audit = await pool.query(`SELECT actor, action, reason FROM audit_events WHERE target_id = $1`, [id]);
    expect(audit.rows).toEqual([{ actor: "token:test-operator", action: "run.cancel", reason: "test stop" }]);

    const trace = await callRoute(getRunRoute as never, { token: viewer, params: { id } });
    expect(trace.status).toBe(200);
    expect(trace.body.run).toMatchObject({
      id,
      state: "cancelled",
      handler: "demo.hang",
      cancelReason: "test stop",
      scheduleName: expect.any(String),
    });
    expect(trace.body.events.map((e: { type: string }) => e.type)).toContain("killed");
    expect(trace.body.attempts).toMatchObject([{ number: 1, state: "cancelled" }]);
    expect(trace.body.logs.map((l: { message: string }) => l.message)).toContain("hanging forever");
  });

  it("cancels a queued run directly, refuses a finished one with 409, and needs the operator role", async () => {
    const s = await insertSchedule(pool, { handler: "demo.noop" });
    const later = await createRun(pool, boss, s, { inMs: 60_000 });
    expect((await callRoute(cancelRoute as never, { method: "POST", token: viewer, params: { id: later }, body: {} })).status).toBe(403);
    const res = await callRoute(cancelRoute as never, {
      method: "POST",
      token: operator,
      params: { id: later },
      body: { reason: "not needed" },
    });
    expect(res.body).toMatchObject({ outcome: "cancelled", state: "cancelled" });
    const again = await callRoute(cancelRoute as never, { method: "POST", token: operator, params: { id: later }, body: {} });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe("run_finished");
    const missing = await callRoute(cancelRoute as never, { method: "POST", token: operator, params: { id: "not-a-uuid" }, body: {} });
    expect(missing.status).toBe(404);
    const bad = await callRoute(cancelRoute as never, { method: "POST", token: operator, params: { id: later }, body: { reason: 5 } });
    expect(bad.status).toBe(422);
    expect(bad.body.error.fields).toHaveProperty("reason");
  });
});
