import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import type { PgBoss } from "pg-boss";
import { useTestDatabase, testPool } from "../../test/db";
import { startWorker, type TestWorker } from "../../test/worker-process";
import { waitFor } from "../../test/wait-for";
import { createRuns, enqueueRun, insertRun, insertSchedule, startTestBoss, waitForWorkerReady } from "../../test/run-fixtures";

const db = useTestDatabase("exec_concurrency");
let pool: pg.Pool;
let boss: PgBoss;
const workers: TestWorker[] = [];

beforeAll(async () => {
  pool = testPool(db.url, 6);
  boss = await startTestBoss(db.url);
  for (let i = 0; i < 3; i++) workers.push(startWorker(db.url, { VIGIL_WORKER_CONCURRENCY: "3", VIGIL_HEARTBEAT_MS: "500" }));
  await Promise.all(workers.map((w) => waitForWorkerReady(w)));
}, 180_000);

afterAll(async () => {
  await Promise.all(workers.map((w) => w.stop()));
  await boss?.stop({ graceful: false, close: true });
  await pool?.end();
});

/** Largest number of attempts of these runs alive at the same instant (from their recorded intervals). */
async function maxConcurrentAttempts(where: string, param: string): Promise<number> {
  const { rows } = await pool.query(
    `SELECT a.started_at, a.finished_at FROM attempts a JOIN runs r ON r.id = a.run_id WHERE ${where} = $1`,
    [param],
  );
  const edges = rows.flatMap((a) => [
    [a.started_at.getTime(), 1],
    [a.finished_at.getTime(), -1],
  ]) as [number, number][];
  edges.sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  let n = 0;
  let max = 0;
  for (const [, d] of edges) max = Math.max(max, (n += d));
  return max;
}

function sample(query: string, params: unknown[]): { stop: () => Promise<number[]> } {
  const seen: number[] = [];
  let on = true;
  const loop = (async () => {
    while (on) {
      seen.push((await pool.query(query, params)).rows[0].n);
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  return {
    stop: async () => {
      on = false;
      await loop;
      return seen;
    },
  };
}

describe("concurrency group across workers", () => {
  it("never runs more than the group's limit, however many workers and queued runs", async () => {
    const group = "limit-two";
    const s = await insertSchedule(pool, { handler: "demo.sleep", payload: { ms: 300, records: 1 }, concurrencyGroup: group });
    await pool.query(`UPDATE concurrency_groups SET max_running = 2 WHERE name = $1`, [group]);
    const sampler = sample(`SELECT count(*)::int AS n FROM runs WHERE concurrency_group = $1 AND state = 'running'`, [group]);
    await createRuns(pool, boss, s, 30);
    await waitFor(
      "all 30 runs to succeed",
      async () =>
        (await pool.query(`SELECT count(*)::int AS n FROM runs WHERE schedule_id = $1 AND state = 'succeeded'`, [s])).rows[0].n === 30,
      { timeoutMs: 60_000 },
    );
    const seen = await sampler.stop();
    expect(Math.max(...seen)).toBe(2);
    expect(await maxConcurrentAttempts("r.concurrency_group", group)).toBeLessThanOrEqual(2);
    const workersUsed = await pool.query(`SELECT count(DISTINCT worker_id)::int AS n FROM runs WHERE schedule_id = $1`, [s]);
    expect(workersUsed.rows[0].n).toBeGreaterThan(1);
    const waited = await pool.query(
      `SELECT count(*)::int AS n FROM run_events e JOIN runs r ON r.id = e.run_id WHERE r.schedule_id = $1 AND e.type = 'waiting'`,
      [s],
    );
    expect(waited.rows[0].n).toBeGreaterThan(0);
  });
});

describe("overlap policies (a 1 s schedule whose handler takes 3.5 s)", () => {
  async function fireEverySecond(policy: "skip" | "allow" | "buffer_one", fires: number) {
    const s = await insertSchedule(pool, { handler: "demo.sleep", payload: { ms: 3500, records: 1 }, overlapPolicy: policy });
    // What the planner does: occurrences planned ahead, each enqueued with its due time.
    for (let i = 0; i < fires; i++) await enqueueRun(pool, boss, await insertRun(pool, s, { inMs: 1500 + i * 1000, kind: "scheduled" }));
    return s;
  }

  const allEnded = (s: string) =>
    waitFor(
      "every occurrence to end",
      async () =>
        (
          await pool.query(
            `SELECT count(*)::int AS n FROM runs WHERE schedule_id = $1 AND state IN ('planned', 'queued', 'running', 'retrying')`,
            [s],
          )
        ).rows[0].n === 0,
      { timeoutMs: 40_000 },
    );
  const countState = async (s: string, state: string) =>
    (await pool.query(`SELECT count(*)::int AS n FROM runs WHERE schedule_id = $1 AND state = $2`, [s, state])).rows[0].n as number;

  it("skip never has two attempts running, allow does, buffer_one keeps at most one waiting", async () => {
    const [skip, allow, buffer] = await Promise.all([
      fireEverySecond("skip", 8),
      fireEverySecond("allow", 8),
      fireEverySecond("buffer_one", 8),
    ]);
    const running = sample(
      `SELECT coalesce(max(n), 0)::int AS n FROM (SELECT count(*) AS n FROM runs WHERE schedule_id = ANY($1::uuid[]) AND state = 'running' GROUP BY schedule_id) x`,
      [[skip, buffer]],
    );
    const buffered = sample(`SELECT count(*)::int AS n FROM runs WHERE schedule_id = $1 AND state = 'queued' AND wait_reason = 'overlap'`, [
      buffer,
    ]);
    await Promise.all([allEnded(skip), allEnded(allow), allEnded(buffer)]);
    const [runningSeen, bufferedSeen] = await Promise.all([running.stop(), buffered.stop()]);

    expect(Math.max(...runningSeen)).toBe(1);
    expect(await maxConcurrentAttempts("r.schedule_id", skip)).toBe(1);
    expect(await countState(skip, "skipped_overlap")).toBeGreaterThanOrEqual(4);
    expect(await countState(skip, "succeeded")).toBeGreaterThanOrEqual(2);

    expect(await maxConcurrentAttempts("r.schedule_id", allow)).toBeGreaterThanOrEqual(3);
    expect(await countState(allow, "succeeded")).toBe(8);

    expect(Math.max(...bufferedSeen)).toBe(1);
    expect(await maxConcurrentAttempts("r.schedule_id", buffer)).toBe(1);
    expect(await countState(buffer, "skipped_overlap")).toBeGreaterThanOrEqual(2);
    // A buffered run starts as soon as the active one ends.
    const { rows } = await pool.query(
      `SELECT a.started_at, (SELECT max(b.finished_at) FROM attempts b JOIN runs rb ON rb.id = b.run_id
                               WHERE rb.schedule_id = $1 AND b.finished_at <= a.started_at) AS prev_end
         FROM attempts a JOIN runs r ON r.id = a.run_id
        WHERE r.schedule_id = $1 AND EXISTS (SELECT 1 FROM run_events e WHERE e.run_id = r.id AND e.type = 'waiting')`,
      [buffer],
    );
    expect(rows.length).toBeGreaterThanOrEqual(1);
    for (const r of rows) expect(r.started_at.getTime() - r.prev_end.getTime()).toBeLessThan(2500);
  });
});
