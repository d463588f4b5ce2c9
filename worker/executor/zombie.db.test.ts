import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import type { PgBoss } from "pg-boss";
import { useTestDatabase, testPool } from "../../test/db";
import { startWorker, type TestWorker } from "../../test/worker-process";
import { waitFor } from "../../test/wait-for";
import { createRun, insertSchedule, runEvents, runState, startTestBoss, waitForWorkerReady } from "../../test/run-fixtures";

const db = useTestDatabase("exec_zombie");
let pool: pg.Pool;
let boss: PgBoss;
const workers: TestWorker[] = [];

beforeAll(async () => {
  pool = testPool(db.url, 4);
  boss = await startTestBoss(db.url);
});

afterAll(async () => {
  await Promise.all(workers.map((w) => w.stop()));
  await boss?.stop({ graceful: false, close: true });
  await pool?.end();
});

// Default heartbeat (2 s) and zombie threshold (8 s): the bound under test is the product's default.
const env = { VIGIL_WORKER_CONCURRENCY: "2" };

describe("a worker killed mid-run", () => {
  it("becomes a zombie within 15 s, is retried on another worker, and its ledger posting happens exactly once", async () => {
    const a = startWorker(db.url, env);
    workers.push(a);
    const aId = await waitForWorkerReady(a);
    const s = await insertSchedule(pool, {
      handler: "ledger.post",
      payload: { from: "zombie-src", to: "zombie-dst", amount: 125 },
      retryMaxAttempts: 3,
      retryBaseSeconds: 1,
      retryMaxSeconds: 1,
    });

    // Hold the destination account so the posting is mid-transaction (marker written, not committed)
    // when the worker dies.
    const blocker = new pg.Client({ connectionString: db.url });
    await blocker.connect();
    await blocker.query(`INSERT INTO ledger_accounts (id) VALUES ('zombie-src'), ('zombie-dst') ON CONFLICT DO NOTHING`);
    await blocker.query("BEGIN");
    await blocker.query(`SELECT * FROM ledger_accounts WHERE id = 'zombie-dst' FOR UPDATE`);
    try {
      const id = await createRun(pool, boss, s);
      await waitFor("the posting to block inside its transaction", async () => {
        const { rows } = await pool.query(`SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'`, [
          `vigil-run-${id}`,
        ]);
        return rows.length > 0;
      });
      expect((await runState(pool, id)).worker_id).toBe(aId);

      const b = startWorker(db.url, env);
      workers.push(b);
      const bId = await waitForWorkerReady(b);

      const killedAt = (await pool.query(`SELECT clock_timestamp() AS t`)).rows[0].t as Date;
      await a.kill();

      const detected = await waitFor(
        "the run to be reaped as a zombie",
        async () => (await runEvents(pool, id)).find((e) => e.type === "zombie_detected"),
        { timeoutMs: 20_000 },
      );
      expect(detected.at.getTime() - killedAt.getTime()).toBeLessThanOrEqual(15_000);
      expect(detected.message).toMatch(/no heartbeat for .* it died or lost the database/);

      await waitFor(
        "the retry to start on the other worker",
        async () => {
          const r = await runState(pool, id);
          return r.state === "running" && r.attempt === 2;
        },
        { timeoutMs: 30_000 },
      ).catch(async (err) => {
        const act = await pool.query(
          `SELECT application_name, state, wait_event_type, left(query, 120) AS q FROM pg_stat_activity WHERE datname = current_database()`,
        );
        const jobs = await pool.query(`SELECT id, state, start_after, started_on, data FROM pgboss.job WHERE data->>'runId' = $1`, [id]);
        console.log(
          JSON.stringify(
            { run: await runState(pool, id), events: await runEvents(pool, id), activity: act.rows, jobs: jobs.rows },
            null,
            1,
          ),
        );
        console.log(b.logs.slice(-40).join("\n"));
        throw err;
      });
      expect((await runState(pool, id)).worker_id).toBe(bId);
      await blocker.query("COMMIT");

      const r = await waitFor("the run to succeed", async () => {
        const x = await runState(pool, id);
        return x.state === "succeeded" ? x : null;
      });
      expect(r.attempt).toBe(2);
      const entries = await pool.query(`SELECT amount FROM ledger_entries WHERE idempotency_key = $1`, [r.idempotency_key]);
      expect(entries.rows).toEqual([{ amount: 125 }]);
      const bal = await pool.query(`SELECT id, balance FROM ledger_accounts WHERE id LIKE 'zombie-%' ORDER BY id`);
      expect(bal.rows).toEqual([
        { id: "zombie-dst", balance: 125 },
        { id: "zombie-src", balance: -125 },
      ]);
      const types = (await runEvents(pool, id)).map((e) => e.type);
      expect(types).toEqual(["enqueued", "started", "zombie_detected", "sessions_terminated", "retry_scheduled", "started", "finished"]);
      const attempts = await pool.query(`SELECT number, state, worker_id FROM attempts WHERE run_id = $1 ORDER BY number`, [id]);
      expect(attempts.rows).toEqual([
        { number: 1, state: "zombie", worker_id: aId },
        { number: 2, state: "succeeded", worker_id: bId },
      ]);
      const audit = await pool.query(`SELECT actor, action FROM audit_events WHERE target_id = $1`, [id]);
      expect(audit.rows).toEqual([{ actor: "reaper", action: "run.zombie_reaped" }]);
    } finally {
      await blocker.end();
    }
  });
});
