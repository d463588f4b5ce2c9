import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import type { PgBoss } from "pg-boss";
import { useTestDatabase, testPool } from "../../test/db";
import { startWorker, type TestWorker } from "../../test/worker-process";
import { waitFor } from "../../test/wait-for";
import {
  createRun,
  enqueueRun,
  insertRun,
  insertSchedule,
  runEvents,
  runState,
  startTestBoss,
  waitForWorkerReady,
} from "../../test/run-fixtures";
import { sendRunJob } from "../../core/queue/send-run-job";

const db = useTestDatabase("exec_basics");
let pool: pg.Pool;
let boss: PgBoss;
let worker: TestWorker;

beforeAll(async () => {
  pool = testPool(db.url, 4);
  boss = await startTestBoss(db.url);
  worker = startWorker(db.url, { VIGIL_WORKER_CONCURRENCY: "3", VIGIL_HEARTBEAT_MS: "500" });
  await waitForWorkerReady(worker);
}, 180_000);

afterAll(async () => {
  await worker?.stop();
  await boss?.stop({ graceful: false, close: true });
  await pool?.end();
});

const terminal = (id: string) =>
  waitFor(`run ${id} to end`, async () => {
    const r = await runState(pool, id);
    return ["succeeded", "failed", "hollow", "timed_out", "cancelled", "zombie"].includes(r.state) ? r : null;
  });

describe("execution basics", () => {
  it("runs a due run on time and records the outcome, attempt and timings", async () => {
    const s = await insertSchedule(pool, { handler: "demo.sleep", payload: { ms: 50, records: 3 } });
    const id = await createRun(pool, boss, s, { inMs: 300 });
    const r = await terminal(id);
    expect(r.state).toBe("succeeded");
    expect(r.records).toBe(3);
    expect(r.lateness_ms).toBeGreaterThanOrEqual(0);
    expect(r.lateness_ms).toBeLessThan(500);
    expect(r.duration_ms).toBeGreaterThanOrEqual(45);
    const events = (await runEvents(pool, id)).map((e) => e.type);
    expect(events).toEqual(["enqueued", "started", "finished"]);
    const { rows: attempts } = await pool.query(`SELECT state, records FROM attempts WHERE run_id = $1`, [id]);
    expect(attempts).toEqual([{ state: "succeeded", records: 3 }]);
  });

  it("ends hollow when the schedule expects records and the handler reports fewer", async () => {
    const s = await insertSchedule(pool, { handler: "demo.sleep", payload: { ms: 1, records: 0 }, expectRecordsMin: 1 });
    const r = await terminal(await createRun(pool, boss, s));
    expect(r.state).toBe("hollow");
  });

  it("retries a failing handler with backoff, showing the next attempt's time, then fails", async () => {
    const s = await insertSchedule(pool, {
      handler: "demo.flaky",
      payload: { p: 1 },
      retryMaxAttempts: 3,
      retryBaseSeconds: 1,
      retryMaxSeconds: 1,
    });
    const id = await createRun(pool, boss, s);
    await waitFor("a retry to be scheduled", async () => (await runState(pool, id)).next_attempt_at);
    const r = await terminal(id);
    expect(r.state).toBe("failed");
    expect(r.attempt).toBe(3);
    expect(r.error).toMatch(/on purpose/);
    const events = await runEvents(pool, id);
    const retries = events.filter((e) => e.type === "retry_scheduled");
    expect(retries).toHaveLength(2);
    for (const e of retries) expect(e.data.delayMs).toBeLessThanOrEqual(1000);
  });

  it("stores handler logs with the attempt", async () => {
    const s = await insertSchedule(pool, { handler: "ledger.post", payload: { from: "a", to: "b", amount: 7 } });
    const id = await createRun(pool, boss, s);
    expect((await terminal(id)).state).toBe("succeeded");
    const { rows } = await pool.query(`SELECT attempt, level, message FROM run_logs WHERE run_id = $1`, [id]);
    expect(rows).toEqual([{ attempt: 1, level: "info", message: "posted" }]);
    const { rows: bal } = await pool.query(`SELECT id, balance FROM ledger_accounts WHERE id IN ('a', 'b') ORDER BY id`);
    expect(bal).toEqual([
      { id: "a", balance: -7 },
      { id: "b", balance: 7 },
    ]);
  });

  it("runs the handler once when the same run's job is delivered twice (re-sent under another job id)", async () => {
    const s = await insertSchedule(pool, { handler: "ledger.post", payload: { from: "dup-a", to: "dup-b", amount: 3 } });
    const id = await insertRun(pool, s, { inMs: 400 });
    await enqueueRun(pool, boss, id);
    const { rows } = await pool.query(`SELECT due_at FROM runs WHERE id = $1`, [id]);
    // A second job for the same attempt, as a lost acknowledgement or a second enqueue would produce.
    const c = await pool.connect();
    try {
      await sendRunJob(c, boss, {
        runId: id,
        handler: "ledger.post",
        attempt: 1,
        wake: 9,
        dueAt: rows[0].due_at,
        timeoutSeconds: 0,
        graceSeconds: 0,
      });
    } finally {
      c.release();
    }
    expect((await terminal(id)).state).toBe("succeeded");
    await waitFor("the second delivery to be suppressed", async () =>
      (await runEvents(pool, id)).some((e) => e.type === "duplicate_delivery_suppressed"),
    );
    const { rows: attempts } = await pool.query(`SELECT count(*)::int AS n FROM attempts WHERE run_id = $1`, [id]);
    expect(attempts[0].n).toBe(1);
    const { rows: entries } = await pool.query(`SELECT count(*)::int AS n FROM ledger_entries WHERE run_id = $1`, [id]);
    expect(entries[0].n).toBe(1);
  });
});
