// A worker SIGKILLed while it holds a whole batch of running runs. zombie.db.test.ts shows the reaper's side for one
// run (detected, its sessions ended, retried on another worker, the posting made once); this test covers the batch
// and pg-boss's side of the same failure: each attempt's job is left 'active' by the dead worker and pg-boss's own
// expiry (the job's expireInSeconds, checked by its supervisor) fails it; the reaper retries every run on the
// surviving worker; each run ends once, with one retry, and no posting happens twice.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import type { PgBoss } from "pg-boss";
import { useTestDatabase, testPool } from "../../test/db";
import { startWorker, type TestWorker } from "../../test/worker-process";
import { waitFor } from "../../test/wait-for";
import { insertRun, insertSchedule, runEvents, startTestBoss, waitForWorkerReady } from "../../test/run-fixtures";
import { withTransaction } from "../../core/db/pool";
import { ensureRunQueues, runQueueFor } from "../../core/queue/boss";
import { jobIdFor } from "../../core/queue/job-id";
import { runJobOptions } from "../../core/queue/send-run-job";

const db = useTestDatabase("exec_killed_batch");
const BATCH = 4;
/** The first attempts' pg-boss expiry, shortened from the product's (the run's timeout + grace + 60 s) for the test. */
const EXPIRE_S = 2;
const env = {
  VIGIL_WORKER_CONCURRENCY: String(BATCH),
  VIGIL_HEARTBEAT_MS: "500",
  // Later than pg-boss's expiry below can take on a loaded machine (a supervise pass also refreshes stats and may
  // reindex): a zombie reaped first has its job failed by the reaper, not expired by pg-boss, and the test is about
  // pg-boss's side.
  VIGIL_ZOMBIE_AFTER_MS: "20000",
  VIGIL_WORKER_DEAD_AFTER_MS: "3000",
};
let pool: pg.Pool;
let boss: PgBoss;
const workers: TestWorker[] = [];

beforeAll(async () => {
  pool = testPool(db.url, 4);
  boss = await startTestBoss(db.url);
});

afterAll(async () => {
  await Promise.all(workers.map((w) => w.kill()));
  await boss?.stop({ graceful: false, close: true });
  await pool?.end();
});

describe("a worker SIGKILLed mid-batch", () => {
  it("leaves jobs pg-boss expires and runs the reaper retries elsewhere: each run ends once, each posting made once", async () => {
    const a = startWorker(db.url, env);
    workers.push(a);
    const aId = await waitForWorkerReady(a);
    const s = await insertSchedule(pool, {
      handler: "ledger.post",
      payload: { from: "batch-src", to: "batch-dst", amount: 1 },
      retryMaxAttempts: 2,
      retryBaseSeconds: 1,
      retryMaxSeconds: 1,
      // Long enough that the batch's own timeout cannot end it first while worker B starts on a loaded machine.
      timeoutSeconds: 300,
    });
    // Hold the destination account: every posting of the batch is mid-transaction when the worker dies.
    const blocker = new pg.Client({ connectionString: db.url });
    await blocker.connect();
    await blocker.query(`INSERT INTO ledger_accounts (id) VALUES ('batch-src'), ('batch-dst') ON CONFLICT DO NOTHING`);
    await blocker.query("BEGIN");
    await blocker.query(`SELECT * FROM ledger_accounts WHERE id = 'batch-dst' FOR UPDATE`);
    try {
      const ids: string[] = [];
      // The runs are inserted in the transaction that queues them and sends their jobs: a run committed 'planned' and
      // due would be enqueued by worker A's planner first, with the product's expiry, and this test's send with its
      // seconds-long expiry would then be a no-op (the job id is taken).
      await withTransaction(async (tx) => {
        for (let i = 0; i < BATCH; i++) ids.push(await insertRun(tx, s, { inMs: 300 }));
        const { rows } = await tx.query(
          `UPDATE runs SET state = 'queued', enqueued_at = clock_timestamp() WHERE id = ANY($1::uuid[]) RETURNING id, handler, due_at`,
          [ids],
        );
        // The run's own options, but an expiry of seconds (a run's expiry is its timeout + grace + 60 s): pg-boss
        // expires the dead worker's jobs within the test's time.
        await ensureRunQueues(boss, [rows[0].handler]);
        await boss.insert(
          runQueueFor(rows[0].handler),
          rows.map((r) => ({
            ...runJobOptions({ runId: r.id, handler: r.handler, attempt: 1, dueAt: r.due_at, timeoutSeconds: 300, graceSeconds: 0 }),
            expireInSeconds: EXPIRE_S,
          })),
          { db: { executeSql: async (text: string, values?: unknown[]) => tx.query(text, values as unknown[]) } },
        );
      }, pool);
      await waitFor(
        "every posting of the batch to block inside its transaction on worker A",
        async () => {
          const { rows } = await pool.query(
            `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = ANY($1::text[]) AND wait_event_type = 'Lock'`,
            [ids.map((id) => `vigil-run-${id}`)],
          );
          return rows[0].n === BATCH;
        },
        { timeoutMs: 30_000 },
      );
      const { rows: running } = await pool.query(`SELECT count(*)::int AS n FROM runs WHERE id = ANY($1::uuid[]) AND worker_id = $2`, [
        ids,
        aId,
      ]);
      expect(running[0].n).toBe(BATCH);

      const b = startWorker(db.url, env);
      workers.push(b);
      const bId = await waitForWorkerReady(b);
      await a.kill();

      // pg-boss's expiry, as its supervisor runs it (every minute in the workers; called here so the test need not wait).
      // A pass expires a queue's jobs only when it claims the queue's monitor interval, which a worker's own pass may
      // have just claimed: the claim is handed back first, so this pass is the one that runs.
      await waitFor(
        "pg-boss to expire the dead worker's jobs",
        async () => {
          await pool.query(`UPDATE pgboss.queue SET monitor_on = NULL, monitor_claim_on = NULL WHERE name = $1`, [
            runQueueFor("ledger.post"),
          ]);
          await boss.supervise(runQueueFor("ledger.post"));
          const { rows } = await pool.query(
            `SELECT count(*)::int AS n FROM pgboss.job WHERE id = ANY($1::uuid[]) AND state = 'failed' AND output::text LIKE '%job timed out%'`,
            [ids.map((id) => jobIdFor(id, 1))],
          );
          return rows[0].n === BATCH;
        },
        { timeoutMs: 19_000, intervalMs: 200 },
      );

      await waitFor(
        "the reaper to retry every run on worker B",
        async () => {
          const { rows } = await pool.query(
            `SELECT count(*)::int AS n FROM runs WHERE id = ANY($1::uuid[]) AND state = 'running' AND attempt = 2 AND worker_id = $2`,
            [ids, bId],
          );
          return rows[0].n === BATCH;
        },
        { timeoutMs: 60_000, intervalMs: 200 },
      );
      await blocker.query("COMMIT");

      await waitFor(
        "every run to succeed",
        async () =>
          (await pool.query(`SELECT count(*)::int AS n FROM runs WHERE id = ANY($1::uuid[]) AND state = 'succeeded'`, [ids])).rows[0].n ===
          BATCH,
        { timeoutMs: 30_000 },
      );
      for (const id of ids) {
        const types = (await runEvents(pool, id)).map((e) => e.type);
        for (const once of ["zombie_detected", "retry_scheduled", "finished"]) {
          expect(types.filter((t) => t === once).length, `run ${id}: ${once} in ${types.join(", ")}`).toBe(1);
        }
        const { rows: attempts } = await pool.query(`SELECT number, state, worker_id FROM attempts WHERE run_id = $1 ORDER BY number`, [
          id,
        ]);
        expect(attempts).toEqual([
          { number: 1, state: "zombie", worker_id: aId },
          { number: 2, state: "succeeded", worker_id: bId },
        ]);
      }
      // The retries' jobs were completed normally; the expired ones stay failed.
      await waitFor(
        "the retries' jobs to be completed",
        async () =>
          (
            await pool.query(`SELECT count(*)::int AS n FROM pgboss.job WHERE id = ANY($1::uuid[]) AND state = 'completed'`, [
              ids.map((id) => jobIdFor(id, 2)),
            ])
          ).rows[0].n === BATCH,
        { timeoutMs: 15_000 },
      );
      // No effect twice: one ledger entry per run, the balances moved by the batch once.
      const { rows: entries } = await pool.query(
        `SELECT r.id, count(e.*)::int AS n FROM runs r LEFT JOIN ledger_entries e ON e.idempotency_key = r.idempotency_key
          WHERE r.id = ANY($1::uuid[]) GROUP BY r.id`,
        [ids],
      );
      expect(entries.map((e) => e.n)).toEqual(new Array(BATCH).fill(1));
      const { rows: bal } = await pool.query(`SELECT id, balance FROM ledger_accounts WHERE id LIKE 'batch-%' ORDER BY id`);
      expect(bal).toEqual([
        { id: "batch-dst", balance: BATCH },
        { id: "batch-src", balance: -BATCH },
      ]);
    } finally {
      await blocker.end();
    }
  }, 240_000);
});
