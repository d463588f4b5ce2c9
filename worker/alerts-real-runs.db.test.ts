// Every alert kind raised by real runs on real worker processes: a zero-record success (hollow), repeated
// failures (demo.flaky p = 1; with a schedule's own threshold and with the global default), a slow handler making the next run late and blowing the completion deadline, a
// SIGKILLed worker (zombie), and a firing missed while no worker ran. Each appears once in the alert list and in
// /api/metrics, and resolves when its condition clears. Also: lines about a run carry its ids in the process log.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NextRequest } from "next/server";
import pg from "pg";
import { useTestDatabase, testPool } from "../test/db";
import { createTestToken } from "../test/auth";
import { callRoute } from "../test/call-route";
import { startWorker, type TestWorker } from "../test/worker-process";
import { waitFor } from "../test/wait-for";
import { parsePrometheusText } from "../test/prometheus-text";
import { systemActor } from "../core/auth/roles";
import { createSchedule } from "../core/schedules/create-schedule";
import { triggerNow } from "../core/schedules/trigger-now";
import { dbNow } from "../core/db/pool";
import { GET as listAlertsRoute } from "../app/api/alerts/route";
import { GET as metricsRoute } from "../app/api/metrics/route";

const db = useTestDatabase("alerts_real_runs");
let pool: pg.Pool;
let token: string;
const workers: TestWorker[] = [];
const actor = systemActor("test");
const YEARLY = { kind: "cron", cron: "0 0 1 1 *", timezone: "UTC" };

const env = {
  VIGIL_ALERT_EVAL_MS: "500",
  VIGIL_HEARTBEAT_MS: "500",
  VIGIL_ZOMBIE_AFTER_MS: "3000",
  VIGIL_WORKER_CONCURRENCY: "4",
};

const warm = (w: TestWorker) =>
  waitFor("the worker's executor threads to be warm", () => w.logs.some((l) => l.includes("executor threads warm")), {
    timeoutMs: 120_000,
    intervalMs: 250,
  });

async function spawnWorker(): Promise<TestWorker> {
  const w = startWorker(db.url, env);
  workers.push(w);
  await w.workerId();
  await warm(w);
  return w;
}

beforeAll(async () => {
  pool = testPool(db.url, 3);
  token = await createTestToken(db.url, "viewer");
  await Promise.all([spawnWorker(), spawnWorker()]);
}, 180_000);

afterAll(async () => {
  await Promise.all(workers.map((w) => w.kill()));
  await pool.end();
});

interface AlertRow {
  id: string;
  kind: string;
  resolvedAt: string | null;
  resolution: string | null;
  message: string;
}

async function alertsOf(scheduleId: string): Promise<AlertRow[]> {
  const r = await callRoute(listAlertsRoute, { path: `/api/alerts?state=all&scheduleId=${scheduleId}`, token });
  expect(r.status).toBe(200);
  return r.body.alerts;
}

async function metrics() {
  const res = await metricsRoute(new NextRequest("http://localhost:3000/api/metrics", { headers: { authorization: `Bearer ${token}` } }), {
    params: Promise.resolve({}),
  });
  expect(res.status).toBe(200);
  return parsePrometheusText(await res.text());
}

function value(
  m: Map<string, { samples: { name: string; labels: Record<string, string>; value: number }[] }>,
  name: string,
  labels: Record<string, string>,
) {
  const samples = [...m.values()].flatMap((f) => f.samples);
  return samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;
}

async function runState(runId: string): Promise<string> {
  return (await pool.query(`SELECT state FROM runs WHERE id = $1`, [runId])).rows[0].state;
}

async function trigger(scheduleId: string, until: string[] | null = null): Promise<string> {
  const r = await triggerNow(scheduleId, { reason: "test" }, actor);
  const runId = r.runId!;
  if (until)
    await waitFor(`run ${runId} to end ${until.join("/")}`, async () => until.includes(await runState(runId)), {
      timeoutMs: 60_000,
      intervalMs: 100,
    });
  return runId;
}

async function setPayload(scheduleId: string, payload: unknown): Promise<void> {
  await pool.query(`UPDATE schedules SET payload = $2 WHERE id = $1`, [scheduleId, JSON.stringify(payload)]);
}

/** Waits until the schedule has an alert of this kind; asserts it is the only one and open. */
async function expectOneOpen(scheduleId: string, kind: string): Promise<AlertRow> {
  const open = await waitFor(
    `an open ${kind} alert`,
    async () => (await alertsOf(scheduleId)).find((a) => a.kind === kind && a.resolvedAt === null),
    { timeoutMs: 30_000, intervalMs: 200 },
  );
  expect((await alertsOf(scheduleId)).filter((a) => a.kind === kind)).toHaveLength(1);
  return open;
}

async function expectResolvedOnce(scheduleId: string, kind: string, resolution: RegExp): Promise<void> {
  const done = await waitFor(
    `the ${kind} alert to resolve`,
    async () => (await alertsOf(scheduleId)).find((a) => a.kind === kind && a.resolvedAt !== null),
    { timeoutMs: 30_000, intervalMs: 200 },
  );
  expect(done.resolution).toMatch(resolution);
  expect((await alertsOf(scheduleId)).filter((a) => a.kind === kind)).toHaveLength(1);
}

describe("alerts from real runs", () => {
  it("hollow: a zero-record success where records are expected; a real success resolves it", async () => {
    const s = await createSchedule(
      { name: "real-hollow", handler: "demo.sleep", payload: { ms: 10, records: 0 }, trigger: YEARLY, expectRecordsMin: 1 },
      actor,
    );
    await trigger(s.id, ["hollow"]);
    const alert = await expectOneOpen(s.id, "hollow");
    expect(alert.message).toMatch(/real-hollow: .* reported 0 records \(expected at least 1\)/);
    const m = await metrics();
    expect(value(m, "vigil_runs_hollow_total", { schedule: "real-hollow" })).toBe(1);
    expect(value(m, "vigil_alerts_open", { kind: "hollow" })).toBeGreaterThanOrEqual(1);

    await setPayload(s.id, { ms: 10, records: 3 });
    await trigger(s.id, ["succeeded"]);
    await expectResolvedOnce(s.id, "hollow", /later run succeeded with the expected records/);
    expect(value(await metrics(), "vigil_alerts_open", { kind: "hollow" })).toBe(0);
  });

  it("failures: two consecutive failed runs (demo.flaky p = 1) with a threshold of 2; a success resolves it", async () => {
    const s = await createSchedule(
      { name: "real-flaky", handler: "demo.flaky", payload: { p: 1 }, trigger: YEARLY, failureAlertThreshold: 2 },
      actor,
    );
    await trigger(s.id, ["failed"]);
    await new Promise((r) => setTimeout(r, 1200)); // two evaluation passes: one failure is below the threshold
    expect((await alertsOf(s.id)).filter((a) => a.kind === "failures")).toHaveLength(0);
    await trigger(s.id, ["failed"]);
    const alert = await expectOneOpen(s.id, "failures");
    expect(alert.message).toMatch(
      /real-flaky: 2 consecutive runs failed \(threshold 2; last ended failed\); last error: .*demo\.flaky failed on purpose/,
    );
    const m = await metrics();
    expect(value(m, "vigil_runs_failed_total", { schedule: "real-flaky" })).toBe(2);
    expect(value(m, "vigil_alerts_open", { kind: "failures" })).toBe(1);

    await setPayload(s.id, { p: 0 });
    await trigger(s.id, ["succeeded"]);
    await expectResolvedOnce(s.id, "failures", /succeeded, ending the failure streak/);
  });

  it("failures by default: no threshold set, three failed runs in a row alert (the default, 3); the 4th updates it; a success resolves it; 0 never alerts", async () => {
    const base = { handler: "demo.flaky", payload: { p: 1 }, trigger: YEARLY };
    const off = await createSchedule({ ...base, name: "real-flaky-off", failureAlertThreshold: 0 }, actor);
    const s = await createSchedule({ ...base, name: "real-flaky-default" }, actor);
    expect(s.failureAlertThreshold).toBeNull();
    // The schedule that opted out fails first, so the pass that raises the other one's alert has seen all of its failures.
    for (let i = 0; i < 4; i++) await trigger(off.id, ["failed"]);
    await trigger(s.id, ["failed"]);
    await trigger(s.id, ["failed"]);
    const third = await trigger(s.id, ["failed"]);
    const alert = await expectOneOpen(s.id, "failures");
    expect(alert.message).toMatch(
      /^real-flaky-default: 3 consecutive runs failed \(threshold 3, the default; last ended failed\); last error: .*demo\.flaky failed on purpose/,
    );
    const full = await callRoute(listAlertsRoute, { path: `/api/alerts?state=open&kind=failures&scheduleId=${s.id}`, token });
    expect(full.body.alerts[0]).toMatchObject({ severity: "critical", runId: third });
    expect(await alertsOf(off.id)).toEqual([]);

    const fourth = await trigger(s.id, ["failed"]);
    await waitFor(
      "the alert to count the 4th failure",
      async () => (await alertsOf(s.id)).find((a) => a.kind === "failures" && /: 4 consecutive runs failed/.test(a.message)),
      { timeoutMs: 30_000, intervalMs: 200 },
    );
    const updated = (await callRoute(listAlertsRoute, { path: `/api/alerts?state=all&kind=failures&scheduleId=${s.id}`, token })).body
      .alerts;
    expect(updated).toHaveLength(1);
    expect(updated[0]).toMatchObject({ id: alert.id, resolvedAt: null, runId: fourth });

    await setPayload(s.id, { p: 0 });
    await trigger(s.id, ["succeeded"]);
    await expectResolvedOnce(s.id, "failures", /succeeded, ending the failure streak/);
    expect(await alertsOf(off.id)).toEqual([]);
  });

  it("late and completion deadline: a slow handler holds the group's only slot, so the next run starts late and both finish past the deadline", async () => {
    const s = await createSchedule(
      {
        name: "real-slow",
        handler: "demo.sleep",
        payload: { ms: 2500, records: 1 },
        trigger: YEARLY,
        overlapPolicy: "allow",
        concurrencyGroup: "real-slow-group",
        concurrencyLimit: 1,
        latenessMaxMs: 1000,
        completionDeadlineSeconds: 2,
      },
      actor,
    );
    // The first run holds the slot before the second is planned, so the late run is the newer one. (Triggered
    // together, either may be claimed first; if the newer one won, it would be a good run planned after the late
    // cause and would resolve the alert in the same pass it opened.)
    const first = await trigger(s.id, ["running", "succeeded"]);
    const second = await trigger(s.id);
    await waitFor("both runs to finish", async () => (await runState(first)) === "succeeded" && (await runState(second)) === "succeeded", {
      timeoutMs: 60_000,
    });
    const { rows } = await pool.query(`SELECT id, lateness_ms FROM runs WHERE id = ANY($1::uuid[])`, [[first, second]]);
    const waited = Number(rows.find((r) => r.id === second).lateness_ms);
    expect(waited).toBeGreaterThan(1000);
    expect(Number(rows.find((r) => r.id === first).lateness_ms)).toBeLessThan(waited);
    const late = await expectOneOpen(s.id, "late");
    expect(late.message).toMatch(/real-slow: a run planned at .* (started|has not started) .* late|after its planned time/);
    await expectOneOpen(s.id, "completion_deadline");
    const m = await metrics();
    expect(value(m, "vigil_alerts_open", { kind: "late" })).toBe(1);
    expect(value(m, "vigil_alerts_open", { kind: "completion_deadline" })).toBe(1);
    expect(value(m, "vigil_runs_late_total", { schedule: "real-slow" })).toBe(1);

    await setPayload(s.id, { ms: 10, records: 1 });
    await trigger(s.id, ["succeeded"]);
    await expectResolvedOnce(s.id, "late", /later run started within the lateness limit/);
    await expectResolvedOnce(s.id, "completion_deadline", /later run completed within the deadline/);
  });

  it("zombie: the worker running a run is SIGKILLed; the reaper on the other worker finds it; a later run resolves it", async () => {
    const s = await createSchedule(
      { name: "real-zombie", handler: "demo.sleep", payload: { ms: 60_000, records: 1 }, trigger: YEARLY, retryMaxAttempts: 1 },
      actor,
    );
    const runId = await trigger(s.id, null);
    const { worker_id } = await waitFor(
      "the run to start",
      async () => (await pool.query(`SELECT worker_id FROM runs WHERE id = $1 AND state = 'running'`, [runId])).rows[0],
      { timeoutMs: 30_000 },
    );
    const victim = workers.find((w) => w.logs.some((l) => l.includes(worker_id)))!;
    expect(victim).toBeDefined();
    await victim.kill();
    workers.splice(workers.indexOf(victim), 1);
    const alert = await expectOneOpen(s.id, "zombie");
    expect(alert.message).toMatch(/real-zombie: the run planned at .* lost its worker/);
    // The reaping worker's line names the run, its schedule and attempt, itself and the worker that went silent.
    const reaped = workers
      .flatMap((w) => w.logs)
      .filter((l) => l.includes(runId) && l.includes("zombie run reaped"))
      .map((l) => JSON.parse(l));
    expect(reaped[0]).toMatchObject({ runId, scheduleId: s.id, attempt: 1, ownerWorkerId: worker_id });
    expect(reaped[0].workerId).toEqual(expect.any(String));
    expect(reaped[0].workerId).not.toBe(worker_id);
    expect(await runState(runId)).toBe("zombie");
    const m = await metrics();
    expect(value(m, "vigil_runs_zombie", { schedule: "real-zombie" })).toBe(1);
    expect(value(m, "vigil_alerts_open", { kind: "zombie" })).toBe(1);

    await setPayload(s.id, { ms: 10, records: 1 });
    await trigger(s.id, ["succeeded"]);
    await expectResolvedOnce(s.id, "zombie", /finished on a live worker after the detection/);
  });

  it("missed: a one-off firing falls due while no worker runs; a later run resolves it", async () => {
    // Leave one worker; it plans the firing, then stops before it is due and a new one starts after the deadline.
    const at = new Date((await dbNow()).getTime() + 5000);
    // Misfire policy skip: after the downtime the firing is recorded missed, not run late.
    const s = await createSchedule(
      {
        name: "real-missed",
        handler: "demo.sleep",
        payload: { ms: 10, records: 1 },
        trigger: { kind: "once", at: at.toISOString() },
        startingDeadlineSeconds: 1,
        misfirePolicy: "skip",
      },
      actor,
    );
    await waitFor("the firing to be planned", async () => (await pool.query(`SELECT 1 FROM runs WHERE schedule_id = $1`, [s.id])).rows[0], {
      timeoutMs: 30_000,
    });
    await Promise.all(workers.splice(0).map((w) => w.stop()));
    await waitFor("the firing's starting deadline to pass", async () => (await dbNow()).getTime() > at.getTime() + 1500, {
      timeoutMs: 20_000,
      intervalMs: 200,
    });
    await spawnWorker();
    const alert = await expectOneOpen(s.id, "missed");
    expect(alert.message).toMatch(/real-missed: the occurrence planned at .* never started before its starting deadline \(missed\)/);
    const m = await metrics();
    expect(value(m, "vigil_runs_missed_total", { schedule: "real-missed" })).toBe(1);
    expect(value(m, "vigil_alerts_open", { kind: "missed" })).toBe(1);

    await trigger(s.id, ["succeeded"]);
    await expectResolvedOnce(s.id, "missed", /A later run started/);
  });

  it("lines about a run carry runId, scheduleId, attempt and workerId, and handler log lines reach both the run and the process log", async () => {
    const s = await createSchedule({ name: "real-logs", handler: "demo.cpu", payload: { ms: 50 }, trigger: YEARLY }, actor);
    const runId = await trigger(s.id, ["succeeded"]);
    const { rows } = await pool.query(`SELECT worker_id, attempt FROM runs WHERE id = $1`, [runId]);
    const stored = await waitFor(
      "the handler's line in run_logs",
      async () => (await pool.query(`SELECT message FROM run_logs WHERE run_id = $1`, [runId])).rows[0],
    );
    // The "attempt finished" line is written just after the outcome commits: wait for it rather than race it.
    await waitFor(
      "the attempt's log lines",
      () => workers.some((w) => w.logs.some((l) => l.includes(runId) && l.includes('"attempt finished"'))),
      { timeoutMs: 10_000 },
    );
    const lines = workers
      .flatMap((w) => w.logs)
      .filter((l) => l.includes(runId))
      .map((l) => JSON.parse(l));
    const handlerLine = lines.find((l) => l.msg === stored.message);
    expect(handlerLine).toMatchObject({
      runId,
      scheduleId: s.id,
      attempt: rows[0].attempt,
      workerId: rows[0].worker_id,
      msg: "spinning for 50 ms",
    });
    const finished = lines.find((l) => l.msg === "attempt finished");
    expect(finished).toMatchObject({ runId, scheduleId: s.id, attempt: 1, workerId: rows[0].worker_id });
  });
});
