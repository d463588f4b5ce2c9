// Chaos: ledger postings across three workers while one of them is SIGKILLed and restarted over and
// over and database connections are terminated at random. Whatever happens, every run must end in
// exactly one visible outcome, the ledger must balance, and no posting may happen twice.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fs from "node:fs";
import pg from "pg";
import { useTestDatabase, testPool } from "../../test/db";
import { startWorker, type TestWorker } from "../../test/worker-process";
import { waitFor } from "../../test/wait-for";
import { insertSchedule, startTestBoss, waitForWorkerReady } from "../../test/run-fixtures";
import { sendRunJob } from "../../core/queue/send-run-job";

const db = useTestDatabase("exec_chaos");
const RUNS = 500;
const ACCOUNTS = 12;
const CHAOS_APP = "vigil-chaos-test";
const env = {
  VIGIL_WORKER_CONCURRENCY: "3",
  VIGIL_HEARTBEAT_MS: "500",
  VIGIL_ZOMBIE_AFTER_MS: "3000",
  VIGIL_WORKER_DEAD_AFTER_MS: "3000",
  VIGIL_DRAIN_TIMEOUT_MS: "3000",
};
let pool: pg.Pool;
const workers: TestWorker[] = [];

beforeAll(async () => {
  pool = testPool(db.url, 4, { application_name: CHAOS_APP });
  for (let i = 0; i < 3; i++) workers.push(startWorker(db.url, env));
  await Promise.all(workers.map((w) => waitForWorkerReady(w)));
}, 180_000);

afterAll(async () => {
  await Promise.all(workers.map((w) => w.kill()));
  await pool?.end();
});

/** Plans RUNS postings due over ~20 s and enqueues them, as the planner would, in one transaction. */
async function planPostings(): Promise<void> {
  const s = await insertSchedule(pool, {
    handler: "ledger.post",
    payload: { from: "acct-0", to: "acct-1", amount: 1 },
    retryMaxAttempts: 25,
    retryBaseSeconds: 1,
    retryMaxSeconds: 2,
    timeoutSeconds: 20,
  });
  const { rows } = await pool.query(
    `INSERT INTO runs (schedule_id, kind, planned_at, due_at, idempotency_key, state, handler, payload, timeout_seconds, grace_seconds, max_attempts, enqueued_at)
     SELECT s.id, 'scheduled', t.at, t.at, s.id || ':' || to_char(t.at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'queued', s.handler,
            jsonb_build_object('from', 'acct-' || f, 'to', 'acct-' || ((f + 1 + floor(random() * ($3::int - 1))::int) % $3::int), 'amount', 1 + floor(random() * 1000)::int),
            s.timeout_seconds, s.grace_seconds, s.retry_max_attempts, clock_timestamp()
       FROM schedules s,
            LATERAL (SELECT g, date_trunc('milliseconds', clock_timestamp()) + make_interval(secs => 3 + g * 0.04) AS at, floor(random() * $3::int)::int AS f
                       FROM generate_series(0, $2 - 1) g) t
      WHERE s.id = $1
     RETURNING id, handler, due_at`,
    [s, RUNS, ACCOUNTS],
  );
  const boss = await startTestBoss(db.url);
  const c = await pool.connect();
  try {
    await c.query("BEGIN");
    for (const r of rows)
      await sendRunJob(c, boss, { runId: r.id, handler: r.handler, attempt: 1, dueAt: r.due_at, timeoutSeconds: 20, graceSeconds: 0 });
    await c.query("COMMIT");
  } finally {
    c.release();
    await boss.stop({ graceful: false, close: true });
  }
}

describe("chaos", () => {
  it("500 postings survive a worker SIGKILLed over and over and random connection kills: all end, ledger balances, nothing posted twice", async () => {
    await planPostings();
    let chaos = true;
    let killedWorkers = 0;
    let killedSessions = 0;
    const killer = (async () => {
      while (chaos) {
        await new Promise((r) => setTimeout(r, 4000));
        if (!chaos) break;
        const victim = workers.pop()!;
        await victim.kill();
        killedWorkers++;
        workers.push(startWorker(db.url, env));
      }
    })();
    const terminator = (async () => {
      while (chaos) {
        await new Promise((r) => setTimeout(r, 300));
        const { rows } = await pool.query(
          `SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity
            WHERE datname = current_database() AND pid <> pg_backend_pid() AND application_name <> $1 AND backend_type = 'client backend'
            ORDER BY random() LIMIT 1`,
          [CHAOS_APP],
        );
        if (rows[0]?.ok) killedSessions++;
      }
    })();

    try {
      await waitFor(
        "every run to reach a terminal state",
        async () =>
          (await pool.query(`SELECT count(*)::int AS n FROM runs WHERE state IN ('planned', 'queued', 'running', 'retrying')`)).rows[0]
            .n === 0,
        { timeoutMs: 150_000, intervalMs: 500 },
      );
    } catch (err) {
      // Say where the stragglers are stuck before failing.
      const stuck = await pool.query(
        `SELECT r.id, r.state, r.wait_reason, r.attempt, r.wakes, r.worker_id, r.next_attempt_at, r.due_at,
                (SELECT string_agg(e.type, ' ' ORDER BY e.at, e.id) FROM run_events e WHERE e.run_id = r.id) AS events,
                (SELECT string_agg(j.id::text || ':' || j.state, ' ') FROM pgboss.job j WHERE j.data->>'runId' = r.id::text) AS jobs
           FROM runs r WHERE r.state IN ('planned', 'queued', 'running', 'retrying') LIMIT 10`,
      );
      console.log("runs still moving:", JSON.stringify(stuck.rows, null, 1));
      fs.mkdirSync("artifacts", { recursive: true });
      for (const w of workers) fs.writeFileSync(`artifacts/chaos-worker-${w.pid}.log`, w.logs.join("\n"));
      throw err;
    } finally {
      chaos = false;
      await Promise.all([killer, terminator]);
    }
    expect(killedWorkers).toBeGreaterThanOrEqual(3);
    expect(killedSessions).toBeGreaterThanOrEqual(20);

    const states = await pool.query(`SELECT state, count(*)::int AS n FROM runs GROUP BY state`);
    expect(Object.fromEntries(states.rows.map((r) => [r.state, r.n]))).toEqual({ succeeded: RUNS });

    // Exactly one posting per run, by its idempotency key.
    const entries = await pool.query(
      `SELECT count(*)::int AS n, count(DISTINCT e.idempotency_key)::int AS keys,
              count(*) FILTER (WHERE e.idempotency_key = r.idempotency_key AND e.amount = (r.payload->>'amount')::bigint)::int AS matching
         FROM ledger_entries e JOIN runs r ON r.idempotency_key = e.idempotency_key`,
    );
    expect(entries.rows[0]).toEqual({ n: RUNS, keys: RUNS, matching: RUNS });
    const markers = await pool.query(`SELECT count(*)::int AS n FROM once_markers`);
    expect(markers.rows[0].n).toBe(RUNS);

    // The ledger balances: money only moved, and every balance is exactly its postings.
    const bal = await pool.query(
      `SELECT sum(balance)::bigint AS total,
              count(*) FILTER (WHERE balance <> coalesce((SELECT sum(amount) FROM ledger_entries WHERE to_account = a.id), 0)
                                              - coalesce((SELECT sum(amount) FROM ledger_entries WHERE from_account = a.id), 0))::int AS off
         FROM ledger_accounts a`,
    );
    expect(bal.rows[0]).toEqual({ total: 0, off: 0 });

    // A retry never overlapped the attempt before it.
    const overlaps = await pool.query(
      `SELECT count(*)::int AS n FROM attempts a JOIN attempts b ON b.run_id = a.run_id AND b.number = a.number + 1
        WHERE b.started_at < a.finished_at OR a.finished_at IS NULL`,
    );
    expect(overlaps.rows[0].n).toBe(0);
  }, 240_000);
});
