import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import pg from "pg";
import { useTestDatabase, testPool } from "../../test/db";
import { insertAlertSchedule as insertSchedule, insertRunRow as insertRun, insertRunEvent, insertWorker } from "../../test/alert-fixtures";
import { evaluateAlerts, type EvaluateAlertsOptions } from "./evaluate-alerts";

const db = useTestDatabase("alert_rules");
let pool: pg.Pool;

const opts: EvaluateAlertsOptions = {
  deadAfterMs: 10_000,
  plannerLagThresholdMs: 5_000,
  latenessWindowSeconds: 600,
  globalWebhookUrl: "http://127.0.0.1:9/global",
};

beforeAll(() => {
  pool = testPool(db.url, 4);
});
afterAll(async () => {
  await pool.end();
});
beforeEach(async () => {
  await pool.query("DELETE FROM alert_deliveries; DELETE FROM alerts; DELETE FROM run_events; DELETE FROM runs; DELETE FROM workers");
  // A live worker, so "no live worker" stays quiet unless a test wants it.
  await insertWorker(pool, { heartbeatAgoMs: 0 });
});

async function alertsOf(key: string) {
  const { rows } = await pool.query(
    `SELECT id, kind, severity, message, run_id, occurrences, resolved_at, resolution, data FROM alerts WHERE dedupe_key = $1 ORDER BY opened_at`,
    [key],
  );
  return rows;
}

const evaluate = () => evaluateAlerts(pool, opts);

describe("run-caused alerts", () => {
  it("late: a run beyond lateness_max_ms opens one alert, which a later on-time run resolves; the cause never re-raises", async () => {
    const s = await insertSchedule(pool, { latenessMaxMs: 1000 });
    const late = await insertRun(pool, s.id, { state: "succeeded", plannedAgoMs: 30_000, startedAgoMs: 25_000, finishedAgoMs: 24_000 });
    const r1 = await evaluate();
    expect(r1.opened.map((a) => a.dedupeKey)).toEqual([`late:max:${s.id}`]);
    await evaluate();
    let alerts = await alertsOf(`late:max:${s.id}`);
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({ kind: "late", severity: "warning", run_id: late, resolved_at: null, occurrences: 1 });
    expect(alerts[0].message).toMatch(/started 5\.0 s late \(limit 1\.0 s\)/);

    await insertRun(pool, s.id, { state: "succeeded", plannedAgoMs: 10_000, startedAgoMs: 9_990, finishedAgoMs: 9_000 });
    const r2 = await evaluate();
    expect(r2.resolved.map((a) => a.dedupeKey)).toEqual([`late:max:${s.id}`]);
    await evaluate();
    alerts = await alertsOf(`late:max:${s.id}`);
    expect(alerts).toHaveLength(1);
    expect(alerts[0].resolved_at).not.toBeNull();
    expect(alerts[0].resolution).toMatch(/started within the lateness limit/);
  });

  it("late: a run not started by planned + limit is already late, before it starts", async () => {
    const s = await insertSchedule(pool, { latenessMaxMs: 2000 });
    await insertRun(pool, s.id, { state: "queued", plannedAgoMs: 5000 });
    await insertRun(pool, s.id, { state: "queued", plannedAgoMs: 500 });
    await evaluate();
    const [a] = await alertsOf(`late:max:${s.id}`);
    expect(a.message).toMatch(/has not started 5\.0 s after its planned time/);
  });

  it("late: several late runs join the open alert as occurrences", async () => {
    const s = await insertSchedule(pool, { latenessMaxMs: 100 });
    await insertRun(pool, s.id, { state: "succeeded", plannedAgoMs: 9000, startedAgoMs: 8000, finishedAgoMs: 7900 });
    await evaluate();
    await insertRun(pool, s.id, { state: "succeeded", plannedAgoMs: 6000, startedAgoMs: 5000, finishedAgoMs: 4900 });
    await insertRun(pool, s.id, { state: "succeeded", plannedAgoMs: 4000, startedAgoMs: 3000, finishedAgoMs: 2900 });
    await evaluate();
    const alerts = await alertsOf(`late:max:${s.id}`);
    expect(alerts).toHaveLength(1);
    expect(alerts[0].occurrences).toBe(3);
  });

  it("a late run already followed by an on-time one is reported once, opened and resolved in the same pass", async () => {
    const s = await insertSchedule(pool, { latenessMaxMs: 1000 });
    await insertRun(pool, s.id, { state: "succeeded", plannedAgoMs: 20_000, startedAgoMs: 15_000, finishedAgoMs: 14_000 });
    await insertRun(pool, s.id, { state: "succeeded", plannedAgoMs: 10_000, startedAgoMs: 9_990, finishedAgoMs: 9_000 });
    const r = await evaluate();
    expect(r.opened).toHaveLength(1);
    expect(r.resolved).toHaveLength(1);
    await evaluate();
    await evaluate();
    const alerts = await alertsOf(`late:max:${s.id}`);
    expect(alerts).toHaveLength(1);
    expect(alerts[0].resolved_at).not.toBeNull();
  });

  it("completion deadline: finished too long after planned, or not finished by then; a run completing in time resolves it", async () => {
    const s = await insertSchedule(pool, { completionDeadlineSeconds: 2 });
    await insertRun(pool, s.id, { state: "succeeded", plannedAgoMs: 20_000, startedAgoMs: 19_990, finishedAgoMs: 15_000 });
    await evaluate();
    await insertRun(pool, s.id, { state: "running", plannedAgoMs: 10_000, startedAgoMs: 9_990 });
    await evaluate();
    let [a] = await alertsOf(`completion_deadline:${s.id}`);
    expect(a.occurrences).toBe(2);
    expect(a.message).toMatch(/has not finished 10 s after its planned time \(deadline 2\.0 s\)/);
    await insertRun(pool, s.id, { state: "succeeded", plannedAgoMs: 5_000, startedAgoMs: 4_990, finishedAgoMs: 4_500 });
    await evaluate();
    [a] = await alertsOf(`completion_deadline:${s.id}`);
    expect(a.resolved_at).not.toBeNull();
  });

  it("missed: a missed occurrence opens an alert; a later run that starts resolves it", async () => {
    const s = await insertSchedule(pool);
    const missed = await insertRun(pool, s.id, { state: "missed", plannedAgoMs: 60_000 });
    await evaluate();
    let alerts = await alertsOf(`missed:${s.id}`);
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({ kind: "missed", severity: "critical", run_id: missed });
    await insertRun(pool, s.id, { state: "running", plannedAgoMs: 1000, startedAgoMs: 990 });
    await evaluate();
    alerts = await alertsOf(`missed:${s.id}`);
    expect(alerts[0].resolution).toMatch(/A later run started/);
  });

  it("hollow: a zero-record success opens an alert; a later real success resolves it", async () => {
    const s = await insertSchedule(pool, { expectRecordsMin: 1 });
    await insertRun(pool, s.id, { state: "hollow", plannedAgoMs: 10_000, startedAgoMs: 9_990, finishedAgoMs: 9_000, records: 0 });
    await evaluate();
    let [a] = await alertsOf(`hollow:${s.id}`);
    expect(a.message).toMatch(/reported 0 records \(expected at least 1\)/);
    expect(a.resolved_at).toBeNull();
    await insertRun(pool, s.id, { state: "succeeded", plannedAgoMs: 5_000, startedAgoMs: 4_990, finishedAgoMs: 4_000, records: 3 });
    await evaluate();
    [a] = await alertsOf(`hollow:${s.id}`);
    expect(a.resolved_at).not.toBeNull();
  });

  it("zombie: a zombie detection opens an alert (even when the run is retried); a later finish resolves it", async () => {
    const s = await insertSchedule(pool);
    const run = await insertRun(pool, s.id, { state: "retrying", plannedAgoMs: 20_000, startedAgoMs: 19_990, attempt: 1 });
    await insertRunEvent(pool, run, "zombie_detected", { agoMs: 5000, workerId: "dead-worker" });
    await evaluate();
    let [a] = await alertsOf(`zombie:${s.id}`);
    expect(a).toMatchObject({ kind: "zombie", severity: "critical", run_id: run, resolved_at: null });
    expect(a.message).toMatch(/dead-worker/);
    await pool.query(`UPDATE runs SET state = 'succeeded', attempt = 2, finished_at = now() WHERE id = $1`, [run]);
    await evaluate();
    [a] = await alertsOf(`zombie:${s.id}`);
    expect(a.resolved_at).not.toBeNull();
  });
});

describe("condition alerts", () => {
  it("late p95: p95 start lateness over the window above the objective opens; back under resolves", async () => {
    const s = await insertSchedule(pool, { latenessP95SloMs: 200 });
    for (let i = 0; i < 3; i++)
      await insertRun(pool, s.id, {
        state: "succeeded",
        plannedAgoMs: 30_000 - i * 1000,
        startedAgoMs: 29_000 - i * 1000,
        finishedAgoMs: 28_000,
      });
    await evaluate();
    let [a] = await alertsOf(`late:p95:${s.id}`);
    expect(a.message).toMatch(/p95 start lateness is 1\.0 s .* \(objective 200 ms, 3 runs\)/);
    await evaluate();
    expect(await alertsOf(`late:p95:${s.id}`)).toHaveLength(1);
    await pool.query(`UPDATE runs SET started_at = planned_at + interval '10 milliseconds', lateness_ms = 10`);
    await evaluate();
    [a] = await alertsOf(`late:p95:${s.id}`);
    expect(a.resolved_at).not.toBeNull();
  });

  it("failures: N consecutive failures open an alert; fewer do not; a success resolves it", async () => {
    const s = await insertSchedule(pool, { failureAlertThreshold: 3 });
    await insertRun(pool, s.id, { state: "succeeded", plannedAgoMs: 50_000, startedAgoMs: 49_990, finishedAgoMs: 49_000 });
    await insertRun(pool, s.id, { state: "failed", plannedAgoMs: 40_000, startedAgoMs: 39_990, finishedAgoMs: 39_000, error: "boom" });
    await insertRun(pool, s.id, { state: "timed_out", plannedAgoMs: 30_000, startedAgoMs: 29_990, finishedAgoMs: 29_000 });
    await evaluate();
    expect(await alertsOf(`failures:${s.id}`)).toHaveLength(0);
    await insertRun(pool, s.id, {
      state: "failed",
      plannedAgoMs: 20_000,
      startedAgoMs: 19_990,
      finishedAgoMs: 19_000,
      error: "flaky: failed on purpose",
    });
    await evaluate();
    let [a] = await alertsOf(`failures:${s.id}`);
    expect(a.message).toMatch(/3 consecutive runs failed \(threshold 3; last ended failed\); last error: flaky: failed on purpose/);
    await insertRun(pool, s.id, { state: "succeeded", plannedAgoMs: 10_000, startedAgoMs: 9_990, finishedAgoMs: 9_000 });
    await evaluate();
    [a] = await alertsOf(`failures:${s.id}`);
    expect(a.resolved_at).not.toBeNull();
  });

  const failRun = (scheduleId: string, agoMs: number, state = "failed", error: string | null = "boom") =>
    insertRun(pool, scheduleId, { state, plannedAgoMs: agoMs, startedAgoMs: agoMs - 10, finishedAgoMs: agoMs - 500, error });
  const okRun = (scheduleId: string, agoMs: number) =>
    insertRun(pool, scheduleId, { state: "succeeded", plannedAgoMs: agoMs, startedAgoMs: agoMs - 10, finishedAgoMs: agoMs - 500 });

  it("failures by default: a schedule that sets no threshold alerts after 3 in a row; the 4th updates it; a success resolves it", async () => {
    const s = await insertSchedule(pool, { failureAlertThreshold: null });
    await failRun(s.id, 40_000, "failed");
    await failRun(s.id, 30_000, "timed_out", null);
    await evaluate();
    expect(await alertsOf(`failures:${s.id}`)).toHaveLength(0);
    const third = await failRun(s.id, 20_000, "zombie", "heartbeat lost");
    const r = await evaluate();
    // (The zombie run raises its own zombie alert as well.)
    expect(r.opened.map((a) => a.dedupeKey)).toContain(`failures:${s.id}`);
    let alerts = await alertsOf(`failures:${s.id}`);
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({ kind: "failures", severity: "critical", run_id: third, resolved_at: null });
    expect(alerts[0].message).toBe(
      `${s.name}: 3 consecutive runs failed (threshold 3, the default; last ended zombie); last error: heartbeat lost`,
    );
    expect(alerts[0].data).toMatchObject({ consecutive: 3, threshold: 3, thresholdFrom: "default" });

    const fourth = await failRun(s.id, 10_000, "timed_out", "timed out after 60 s");
    expect((await evaluate()).opened).toEqual([]);
    alerts = await alertsOf(`failures:${s.id}`);
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({ run_id: fourth, resolved_at: null });
    expect(alerts[0].message).toMatch(
      /: 4 consecutive runs failed \(threshold 3, the default; last ended timed_out\); last error: timed out/,
    );

    await okRun(s.id, 5_000);
    expect((await evaluate()).resolved.map((a) => a.dedupeKey)).toEqual([`failures:${s.id}`]);
    alerts = await alertsOf(`failures:${s.id}`);
    expect(alerts).toHaveLength(1);
    expect(alerts[0].resolution).toMatch(/succeeded, ending the failure streak/);
  });

  it("failures: a schedule with threshold 0 never alerts on failures; setting 0 resolves its open alert", async () => {
    const off = await insertSchedule(pool, { failureAlertThreshold: 0 });
    const on = await insertSchedule(pool, { failureAlertThreshold: null });
    for (const ago of [50_000, 40_000, 30_000, 20_000, 10_000]) {
      await failRun(off.id, ago);
      await failRun(on.id, ago);
    }
    await evaluate();
    expect(await alertsOf(`failures:${off.id}`)).toHaveLength(0);
    expect((await alertsOf(`failures:${on.id}`))[0].message).toMatch(/5 consecutive runs failed/);
    await pool.query(`UPDATE schedules SET failure_alert_threshold = 0 WHERE id = $1`, [on.id]);
    await evaluate();
    expect((await alertsOf(`failures:${on.id}`))[0].resolution).toMatch(/no longer sets this expectation/);
  });

  it("failures: VIGIL_ALERT_FAILURE_THRESHOLD=0 turns the default off; a schedule's own threshold still alerts", async () => {
    const noDefault = { ...opts, failureAlertThreshold: 0 };
    const plain = await insertSchedule(pool, { failureAlertThreshold: null });
    const own = await insertSchedule(pool, { failureAlertThreshold: 2 });
    for (const ago of [30_000, 20_000, 10_000]) {
      await failRun(plain.id, ago);
      await failRun(own.id, ago);
    }
    await evaluateAlerts(pool, noDefault);
    expect(await alertsOf(`failures:${plain.id}`)).toHaveLength(0);
    expect((await alertsOf(`failures:${own.id}`))[0].message).toMatch(/3 consecutive runs failed \(threshold 2; last ended failed\)/);
    // An alert opened under the default resolves once the default is turned off.
    await evaluateAlerts(pool, { ...opts, failureAlertThreshold: 5 });
    await evaluateAlerts(pool, opts);
    expect((await alertsOf(`failures:${plain.id}`))[0].resolved_at).toBeNull();
    await evaluateAlerts(pool, noDefault);
    expect((await alertsOf(`failures:${plain.id}`))[0].resolution).toMatch(/no longer sets this expectation/);
    expect((await alertsOf(`failures:${own.id}`))[0].resolved_at).toBeNull();
  });

  it("failures: a streak whose failures are older than a day still clears on the next success", async () => {
    const s = await insertSchedule(pool, { failureAlertThreshold: null });
    for (const ago of [30_000, 20_000, 10_000]) await failRun(s.id, ago);
    await evaluate();
    expect((await alertsOf(`failures:${s.id}`))[0].resolved_at).toBeNull();
    // The schedule stopped running for two days (paused, say): its failures left the rule's one-day look-back.
    await pool.query(
      `UPDATE runs SET planned_at = planned_at - interval '2 days', due_at = due_at - interval '2 days' WHERE schedule_id = $1`,
      [s.id],
    );
    await evaluate();
    expect((await alertsOf(`failures:${s.id}`))[0].resolved_at).toBeNull();
    await okRun(s.id, 1_000);
    await evaluate();
    expect((await alertsOf(`failures:${s.id}`))[0].resolution).toMatch(/succeeded, ending the failure streak/);
  });

  it("failures: failures of other schedules, or older than a success, do not count", async () => {
    const a = await insertSchedule(pool, { failureAlertThreshold: null });
    const b = await insertSchedule(pool, { failureAlertThreshold: null });
    await failRun(a.id, 60_000);
    await failRun(a.id, 50_000);
    await okRun(a.id, 40_000);
    await failRun(a.id, 30_000);
    await failRun(a.id, 20_000);
    await failRun(b.id, 10_000);
    await evaluate();
    expect(await alertsOf(`failures:${a.id}`)).toHaveLength(0);
    expect(await alertsOf(`failures:${b.id}`)).toHaveLength(0);
    await failRun(a.id, 10_000);
    await evaluate();
    expect((await alertsOf(`failures:${a.id}`))[0].message).toMatch(/3 consecutive runs failed/);
  });

  it("no live worker: all heartbeats stale opens a critical alert; a heartbeat resolves it", async () => {
    await pool.query(`UPDATE workers SET heartbeat_at = clock_timestamp() - interval '30 seconds'`);
    await evaluate();
    let [a] = await alertsOf("no_worker");
    expect(a).toMatchObject({ kind: "no_worker", severity: "critical", resolved_at: null });
    expect(a.message).toMatch(/No live worker: the last heartbeat was 30 s ago/);
    await pool.query(`UPDATE workers SET heartbeat_at = clock_timestamp()`);
    await evaluate();
    [a] = await alertsOf("no_worker");
    expect(a.resolved_at).not.toBeNull();
  });

  it("planner behind: a live worker's planner lag above the threshold opens; back under resolves", async () => {
    await pool.query(`UPDATE workers SET planner_lag_ms = 12000`);
    await evaluate();
    let [a] = await alertsOf("planner_lag");
    expect(a.message).toMatch(/12 s of planner lag \(threshold 5\.0 s\)/);
    await pool.query(`UPDATE workers SET planner_lag_ms = 40`);
    await evaluate();
    [a] = await alertsOf("planner_lag");
    expect(a.resolved_at).not.toBeNull();
  });

  it("a deleted schedule's open alerts resolve", async () => {
    const s = await insertSchedule(pool, { failureAlertThreshold: 1 });
    await insertRun(pool, s.id, { state: "failed", plannedAgoMs: 8000, startedAgoMs: 7990, finishedAgoMs: 7000 });
    await insertRun(pool, s.id, { state: "missed", plannedAgoMs: 5000 });
    await evaluate();
    expect((await alertsOf(`missed:${s.id}`))[0].resolved_at).toBeNull();
    expect((await alertsOf(`failures:${s.id}`))[0].resolved_at).toBeNull();
    await pool.query(`UPDATE schedules SET deleted_at = now() WHERE id = $1`, [s.id]);
    await evaluate();
    expect((await alertsOf(`missed:${s.id}`))[0].resolution).toMatch(/deleted/);
    expect((await alertsOf(`failures:${s.id}`))[0].resolution).toMatch(/deleted/);
  });
});

describe("evaluation", () => {
  it("queues a webhook delivery per target for each opened and resolved alert", async () => {
    const s = await insertSchedule(pool, { webhookUrl: "http://127.0.0.1:9/schedule" });
    await insertRun(pool, s.id, { state: "missed", plannedAgoMs: 5000 });
    await evaluate();
    await insertRun(pool, s.id, { state: "succeeded", plannedAgoMs: 1000, startedAgoMs: 990, finishedAgoMs: 900 });
    await evaluate();
    const { rows } = await pool.query(`SELECT event, url, state FROM alert_deliveries ORDER BY id`);
    expect(rows).toEqual(
      [
        { event: "opened", url: "http://127.0.0.1:9/global", state: "pending" },
        { event: "opened", url: "http://127.0.0.1:9/schedule", state: "pending" },
        { event: "resolved", url: "http://127.0.0.1:9/global", state: "pending" },
        { event: "resolved", url: "http://127.0.0.1:9/schedule", state: "pending" },
      ].sort((a, b) => (a.event + a.url).localeCompare(b.event + b.url)),
    );
  });

  it("several evaluators at once raise each alert once", async () => {
    const schedules = [];
    for (let i = 0; i < 5; i++) {
      const s = await insertSchedule(pool, { latenessMaxMs: 100, expectRecordsMin: 1 });
      await insertRun(pool, s.id, { state: "hollow", plannedAgoMs: 9000, startedAgoMs: 7000, finishedAgoMs: 6000, records: 0 });
      await insertRun(pool, s.id, { state: "missed", plannedAgoMs: 8000 });
      schedules.push(s);
    }
    const pools = Array.from({ length: 4 }, () => testPool(db.url, 1));
    try {
      for (let round = 0; round < 5; round++) await Promise.all(pools.map((p) => evaluateAlerts(p, opts)));
    } finally {
      await Promise.all(pools.map((p) => p.end()));
    }
    const { rows } = await pool.query(
      `SELECT dedupe_key, count(*)::int AS n, bool_and(resolved_at IS NULL) AS open FROM alerts GROUP BY dedupe_key`,
    );
    expect(rows).toHaveLength(15);
    expect(rows.every((r) => r.open)).toBe(true);
    expect(rows.every((r) => r.n === 1)).toBe(true);
    const { rows: d } = await pool.query(`SELECT count(*)::int AS n FROM alert_deliveries`);
    expect(d[0].n).toBe(15);
  });
});
