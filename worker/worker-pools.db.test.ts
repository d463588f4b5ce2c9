// Worker pools per team, with real worker processes: a team assigned pool P has its runs executed only by a worker
// started with --pool P, the default team's only by a worker without a pool, and a run of P while no P worker is
// alive waits in its queue (it is neither taken by the other worker nor lost) until one starts. Availability is per
// pool (the no-worker alert and the run page name the pool), and changing a team's pool moves its queued runs: each
// waiting job is cancelled by pg-boss and its run sent a fresh job (the next wake of the same attempt) to the new
// pool's queue, with the old job's due time; a job a dispatcher holds is left to it.
import { afterAll, describe, expect, it } from "vitest";
import { useTestDatabase, usePoolAndBoss } from "../test/db";
import { createTestToken } from "../test/auth";
import { callRoute } from "../test/call-route";
import { createRun, createRuns, insertSchedule } from "../test/run-fixtures";
import { waitFor } from "../test/wait-for";
import { startWarmWorker } from "../test/warm-worker";
import type { TestWorker } from "../test/worker-process";
import * as triggerRoute from "../app/api/schedules/[id]/trigger/route";
import * as codeExecutionRoute from "../app/api/teams/[id]/code-execution/route";
import { evaluateHandlerWorkers } from "../core/alerts/condition-alert-rules";
import { getRunTrace } from "../core/runs/read/get-run";
import { stopConsoleBoss } from "../core/queue/console-boss";
import { wakeRuns } from "../core/runs/locks/wake-waiting-runs";
import { withTransaction } from "../core/db/pool";
import * as rerunRoute from "../app/api/runs/[id]/rerun/route";
import { jobIdFor } from "../core/queue/job-id";
import { scheduleRetry } from "../core/runs/finish/retry-run";

const db = useTestDatabase("worker_pools");
const h = usePoolAndBoss(db);
const workers: TestWorker[] = [];

afterAll(async () => {
  await Promise.all(workers.map((w) => w.kill()));
  await stopConsoleBoss();
});

const DEAD_AFTER_MS = 15_000;

const started = new Map<string, Promise<{ w: TestWorker; id: string }>>();

/** The worker of this pool ("" : none), started once for the file. */
function start(args: string[] = []): Promise<{ w: TestWorker; id: string }> {
  const key = args.join(" ");
  let s = started.get(key);
  if (!s) {
    s = (async () => {
      const w = await startWarmWorker(db.url, { VIGIL_PLAN_AHEAD_SECONDS: "30" }, 180_000, args);
      workers.push(w);
      return { w, id: await w.workerId() };
    })();
    started.set(key, s);
  }
  return s;
}

async function setPool(token: string, teamId: string, workerPool: string | null) {
  const res = await callRoute(codeExecutionRoute.PUT, {
    method: "PUT",
    path: `/api/teams/${teamId}/code-execution`,
    params: { id: teamId },
    token,
    body: { workerPool },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { team: { workerPool: string | null }; movedJobs: number };
}

interface JobRow {
  id: string;
  name: string;
  state: string;
  start_after: Date;
  priority: number;
  completed_on: Date | null;
}

async function job(id: string): Promise<JobRow | undefined> {
  const { rows } = await h.pool.query<JobRow>(`SELECT id, name, state, start_after, priority, completed_on FROM pgboss.job WHERE id = $1`, [
    id,
  ]);
  return rows[0];
}

/** What a run's job moved by a pool change looks like: the old one cancelled by pg-boss, the next wake's in `queue`. */
async function expectMoved(runId: string, attempt: number, wake: number, queue: string, old: JobRow): Promise<void> {
  expect(await job(old.id), `old job of ${runId}`).toMatchObject({ name: old.name, state: "cancelled", completed_on: expect.any(Date) });
  const moved = await job(jobIdFor(runId, attempt, wake + 1));
  expect(moved, `new job of ${runId}`).toMatchObject({ name: queue, start_after: old.start_after, priority: old.priority });
  const { rows } = await h.pool.query(`SELECT wakes FROM runs WHERE id = $1`, [runId]);
  expect(rows[0].wakes).toBe(wake + 1);
}

/** How often the run started, and on which workers (its attempts), and how many deliveries its claim suppressed. */
async function starts(runId: string): Promise<{ started: number; workers: string[]; suppressed: number }> {
  const { rows } = await h.pool.query(
    `SELECT (SELECT count(*)::int FROM run_events WHERE run_id = $1 AND type = 'started') AS started,
            (SELECT count(*)::int FROM run_events WHERE run_id = $1 AND type = 'duplicate_delivery_suppressed') AS suppressed,
            (SELECT coalesce(array_agg(worker_id ORDER BY number), '{}') FROM attempts WHERE run_id = $1) AS workers`,
    [runId],
  );
  return rows[0];
}

async function finished(runId: string): Promise<{ state: string; worker_id: string }> {
  return waitFor(
    `run ${runId} to finish`,
    async () => (await h.pool.query(`SELECT state, worker_id FROM runs WHERE id = $1 AND finished_at IS NOT NULL`, [runId])).rows[0],
    { timeoutMs: 120_000, intervalMs: 200 },
  );
}

describe("worker pools", () => {
  it("runs a pool's team only on that pool's workers and the other teams only on workers without a pool", async () => {
    const admin = await createTestToken(db.url, "admin");
    const { rows: t } = await h.pool.query(`INSERT INTO teams (name) VALUES ('payments') RETURNING id`);
    const teamId = t[0].id as string;
    // The pool is set through the API (audited), as an operator would.
    const set = await callRoute(codeExecutionRoute.PUT, {
      method: "PUT",
      path: `/api/teams/${teamId}/code-execution`,
      params: { id: teamId },
      token: admin,
      body: { workerPool: "payments-pool" },
    });
    expect(set.status).toBe(200);
    expect(set.body.team.workerPool).toBe("payments-pool");
    const { rows: audit } = await h.pool.query(`SELECT after FROM audit_events WHERE target_type = 'team' AND target_id = $1`, [teamId]);
    expect(audit.at(-1).after.workerPool).toBe("payments-pool");

    const pooled = await insertSchedule(h.pool, { handler: "demo.noop" });
    await h.pool.query(`UPDATE schedules SET team_id = $2 WHERE id = $1`, [pooled, teamId]);
    const plain = await insertSchedule(h.pool, { handler: "demo.noop" });

    const other = await start();
    // No worker of the pool: the pooled run waits while the default team's run (sent after it) is done.
    const waiting = await createRun(h.pool, h.boss, pooled);
    const first = await createRun(h.pool, h.boss, plain);
    expect(await finished(first)).toMatchObject({ state: "succeeded", worker_id: other.id });
    expect((await h.pool.query(`SELECT state, worker_id FROM runs WHERE id = $1`, [waiting])).rows[0]).toEqual({
      state: "queued",
      worker_id: null,
    });
    const { rows: queues } = await h.pool.query(
      `SELECT DISTINCT name FROM pgboss.job WHERE name LIKE 'vigil-run.demo.noop%' ORDER BY name`,
    );
    expect(queues.map((q) => q.name)).toEqual(["vigil-run.demo.noop", "vigil-run.demo.noop/payments-pool"]);

    const payments = await start(["--pool", "payments-pool"]);
    expect(await finished(waiting)).toMatchObject({ state: "succeeded", worker_id: payments.id });
    const { rows: listed } = await h.pool.query(`SELECT info->>'pool' AS pool FROM workers WHERE id = $1`, [payments.id]);
    expect(listed[0].pool).toBe("payments-pool");

    // Both alive: each team's runs go to its own worker, planned and triggered by hand (the one-statement path).
    const pooledRuns = [await createRun(h.pool, h.boss, pooled), await createRun(h.pool, h.boss, pooled)];
    const plainRuns = [await createRun(h.pool, h.boss, plain), await createRun(h.pool, h.boss, plain)];
    const trigger = async (id: string) => {
      const res = await callRoute(triggerRoute.POST, {
        method: "POST",
        path: `/api/schedules/${id}/trigger`,
        params: { id },
        token: admin,
        body: { reason: "pool test" },
      });
      expect(res.status).toBe(200);
      return res.body.runId as string;
    };
    pooledRuns.push(await trigger(pooled));
    plainRuns.push(await trigger(plain));
    for (const id of pooledRuns) expect(await finished(id), `pooled ${id}`).toMatchObject({ state: "succeeded", worker_id: payments.id });
    for (const id of plainRuns) expect(await finished(id), `plain ${id}`).toMatchObject({ state: "succeeded", worker_id: other.id });
  }, 400_000);

  it("says which pool has no worker, and moves a team's queued jobs when its pool changes", async () => {
    const admin = await createTestToken(db.url, "admin");
    const { rows: t } = await h.pool.query(`INSERT INTO teams (name) VALUES ('data') RETURNING id`);
    const teamId = t[0].id as string;
    expect((await setPool(admin, teamId, "gone-pool")).movedJobs).toBe(0);
    const schedule = await insertSchedule(h.pool, { handler: "demo.noop" });
    await h.pool.query(`UPDATE schedules SET team_id = $2 WHERE id = $1`, [schedule, teamId]);
    const payments = await start(["--pool", "payments-pool"]);
    await start();

    // Due 10 s ago, in the pool no worker serves: workers of other pools serve demo.noop, but not of this one.
    const runs = await createRuns(h.pool, h.boss, schedule, 3, { inMs: -10_000 });
    const condition = await evaluateHandlerWorkers(h.pool, { deadAfterMs: DEAD_AFTER_MS });
    const firing = condition.firing.find((a) => a.scheduleId === schedule);
    expect(firing?.message).toContain("no live worker of pool gone-pool serves handler demo.noop");
    expect(firing?.data).toMatchObject({ handler: "demo.noop", pool: "gone-pool", waiting: 3 });
    const trace = await getRunTrace(h.pool, runs[0]!, { deadAfterMs: DEAD_AFTER_MS });
    expect(trace.run).toMatchObject({ state: "queued", workerPool: "gone-pool", noLiveWorker: true });
    const { rows: queued } = await h.pool.query(`SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'vigil-run.demo.noop/gone-pool'`);
    expect(queued[0].n).toBe(3);
    const oldJobs = await Promise.all(runs.map(async (id) => (await job(jobIdFor(id, 1, 0)))!));

    // The pool changes to one with a live worker: the queued jobs move with it (audited) and run there.
    const changed = await setPool(admin, teamId, "payments-pool");
    expect(changed.movedJobs).toBe(3);
    const { rows: audit } = await h.pool.query(
      `SELECT before, after FROM audit_events WHERE target_type = 'team' AND target_id = $1 ORDER BY id DESC LIMIT 1`,
      [teamId],
    );
    expect(audit[0].before.workerPool).toBe("gone-pool");
    expect(audit[0].after).toMatchObject({ workerPool: "payments-pool", movedQueuedJobs: 3 });
    // Moved by pg-boss: the old jobs cancelled, each run's next wake in the new pool's queue, due when the old was.
    for (const [i, id] of runs.entries()) await expectMoved(id, 1, 0, "vigil-run.demo.noop/payments-pool", oldJobs[i]!);
    for (const id of runs) expect(await finished(id), `moved ${id}`).toMatchObject({ state: "succeeded", worker_id: payments.id });
    for (const id of runs) expect(await starts(id), `starts of ${id}`).toEqual({ started: 1, workers: [payments.id], suppressed: 0 });
    const { rows: left } = await h.pool.query(
      `SELECT state, count(*)::int AS n FROM pgboss.job WHERE name = 'vigil-run.demo.noop/gone-pool' GROUP BY state`,
    );
    expect(left).toEqual([{ state: "cancelled", n: 3 }]);
    // Nothing waits any more: the schedule's alert clears (it is no longer firing).
    const after = await evaluateHandlerWorkers(h.pool, { deadAfterMs: DEAD_AFTER_MS });
    expect(after.firing.find((a) => a.scheduleId === schedule)).toBeUndefined();
    expect((await getRunTrace(h.pool, runs[0]!, { deadAfterMs: DEAD_AFTER_MS })).run.noLiveWorker).toBe(false);
  }, 400_000);

  it("a run moved off a live pool starts once, on the new pool's worker and never on the old pool's", async () => {
    const admin = await createTestToken(db.url, "admin");
    const { rows: t } = await h.pool.query(`INSERT INTO teams (name, worker_pool) VALUES ('billing', 'payments-pool') RETURNING id`);
    const teamId = t[0].id as string;
    const schedule = await insertSchedule(h.pool, { handler: "demo.noop" });
    await h.pool.query(`UPDATE schedules SET team_id = $2 WHERE id = $1`, [schedule, teamId]);
    const payments = await start(["--pool", "payments-pool"]);
    const other = await start();

    // Due in 12 s in the pool whose worker is alive and fetching: the move takes them first.
    const runs = await createRuns(h.pool, h.boss, schedule, 2, { inMs: 12_000 });
    const oldJobs = await Promise.all(runs.map(async (id) => (await job(jobIdFor(id, 1, 0)))!));
    expect(oldJobs.map((j) => [j.name, j.state])).toEqual([
      ["vigil-run.demo.noop/payments-pool", "created"],
      ["vigil-run.demo.noop/payments-pool", "created"],
    ]);
    expect((await setPool(admin, teamId, null)).movedJobs).toBe(2);
    for (const [i, id] of runs.entries()) await expectMoved(id, 1, 0, "vigil-run.demo.noop", oldJobs[i]!);
    for (const id of runs) expect(await finished(id), `moved ${id}`).toMatchObject({ state: "succeeded", worker_id: other.id });
    for (const id of runs) expect(await starts(id), `starts of ${id}`).toEqual({ started: 1, workers: [other.id], suppressed: 0 });
    const { rows: events } = await h.pool.query(`SELECT message, data FROM run_events WHERE run_id = $1 AND type = 'woken'`, [runs[0]]);
    expect(events).toEqual([
      {
        message: "its team's worker pool changed: the job moved from pool payments-pool to the workers without a pool",
        data: { wake: 1, fromPool: "payments-pool", toPool: null, dueAt: oldJobs[0]!.start_after.toISOString() },
      },
    ]);
    expect(payments.id).not.toBe(other.id);
  }, 400_000);

  it("leaves a job a dispatcher has taken or is taking where it is; a pending retry moves with its due time", async () => {
    const admin = await createTestToken(db.url, "admin");
    const { rows: t } = await h.pool.query(`INSERT INTO teams (name, worker_pool) VALUES ('reports', 'idle-a') RETURNING id`);
    const teamId = t[0].id as string;
    const schedule = await insertSchedule(h.pool, { handler: "demo.noop" });
    await h.pool.query(`UPDATE schedules SET team_id = $2 WHERE id = $1`, [schedule, teamId]);
    const OLD = "vigil-run.demo.noop/idle-a";
    const NEW = "vigil-run.demo.noop/idle-b";

    // Taken: a dispatcher of pool idle-a fetched its job (pg-boss's own fetch) and has not claimed the run yet.
    const [taken] = await createRuns(h.pool, h.boss, schedule, 1, { inMs: -1_000 });
    const fetched = await h.boss.fetch(OLD, { batchSize: 5 });
    expect(fetched.map((j) => j.id)).toEqual([jobIdFor(taken!, 1, 0)]);
    // Being taken: a fetch in flight holds its job's row.
    const [taking, retrying] = await createRuns(h.pool, h.boss, schedule, 2, { inMs: 3_600_000 });
    // A retry pending: attempt 1 failed (its job gone), attempt 2's job is due after the backoff's jitter.
    await h.pool.query(`DELETE FROM pgboss.job WHERE id = $1`, [jobIdFor(retrying!, 1, 0)]);
    await h.pool.query(`UPDATE runs SET attempt = 1 WHERE id = $1`, [retrying]);
    const { nextAttemptAt } = await withTransaction(
      (tx) =>
        scheduleRetry(
          tx,
          h.boss,
          { id: retrying!, handler: "demo.noop", attempt: 1, maxAttempts: 3, timeoutSeconds: 60, graceSeconds: 5 },
          { baseSeconds: 600, maxSeconds: 3_600 },
          { reason: "pool test", random: () => 0.37 },
        ),
      h.pool,
    );
    const retryJob = (await job(jobIdFor(retrying!, 2, 0)))!;
    expect(retryJob).toMatchObject({ name: OLD, state: "created", start_after: nextAttemptAt });

    const fetcher = await h.pool.connect();
    try {
      await fetcher.query("BEGIN");
      await fetcher.query(`SELECT 1 FROM pgboss.job WHERE name = $1 AND id = $2 FOR UPDATE`, [OLD, jobIdFor(taking!, 1, 0)]);
      // The change does not wait for the fetch in flight: it skips that job.
      expect((await setPool(admin, teamId, "idle-b")).movedJobs).toBe(1);
    } finally {
      await fetcher.query("ROLLBACK");
      fetcher.release();
    }

    expect(await job(jobIdFor(taken!, 1, 0))).toMatchObject({ name: OLD, state: "active" });
    expect(await job(jobIdFor(taken!, 1, 1))).toBeUndefined();
    expect(await job(jobIdFor(taking!, 1, 0))).toMatchObject({ name: OLD, state: "created" });
    expect(await job(jobIdFor(taking!, 1, 1))).toBeUndefined();
    const { rows: wakes } = await h.pool.query(`SELECT id, wakes FROM runs WHERE id = ANY($1::uuid[])`, [[taken, taking]]);
    expect(wakes.map((r) => r.wakes)).toEqual([0, 0]);

    await expectMoved(retrying!, 2, 0, NEW, retryJob);
    const { rows: run } = await h.pool.query(`SELECT state, attempt, next_attempt_at FROM runs WHERE id = $1`, [retrying]);
    expect(run[0]).toEqual({ state: "retrying", attempt: 1, next_attempt_at: nextAttemptAt });
    const { rows: audit } = await h.pool.query(
      `SELECT after FROM audit_events WHERE target_type = 'team' AND target_id = $1 ORDER BY id DESC LIMIT 1`,
      [teamId],
    );
    expect(audit[0].after).toMatchObject({ workerPool: "idle-b", movedQueuedJobs: 1 });
  });

  it("a woken or re-run run's job goes to its team's pool (the pool read with the run, no lookup of its own)", async () => {
    const admin = await createTestToken(db.url, "admin");
    const { rows: t } = await h.pool.query(`INSERT INTO teams (name, worker_pool) VALUES ('ops', 'ops-pool') RETURNING id`);
    const schedule = await insertSchedule(h.pool, { handler: "demo.noop" });
    await h.pool.query(`UPDATE schedules SET team_id = $2 WHERE id = $1`, [schedule, t[0].id]);
    const jobsOf = async (runId: string) =>
      (await h.pool.query(`SELECT name FROM pgboss.job WHERE data->>'runId' = $1 ORDER BY created_on`, [runId])).rows.map((r) => r.name);

    const [waiting] = await createRuns(h.pool, h.boss, schedule, 1, { inMs: 3_600_000 });
    await h.pool.query(`UPDATE runs SET wait_reason = 'concurrency' WHERE id = $1`, [waiting]);
    await withTransaction((tx) => wakeRuns(tx, h.boss, [waiting!]), h.pool);
    expect(await jobsOf(waiting!)).toEqual(["vigil-run.demo.noop/ops-pool", "vigil-run.demo.noop/ops-pool"]);

    const [failed] = await createRuns(h.pool, h.boss, schedule, 1, { inMs: 3_600_000 });
    // As if its first attempt had failed (its job taken and gone).
    await h.pool.query(`UPDATE runs SET state = 'failed', attempt = 1, finished_at = clock_timestamp(), error = 'boom' WHERE id = $1`, [
      failed,
    ]);
    await h.pool.query(`DELETE FROM pgboss.job WHERE data->>'runId' = $1`, [failed]);
    const res = await callRoute(rerunRoute.POST, {
      method: "POST",
      path: `/api/runs/${failed}/rerun`,
      params: { id: failed! },
      token: admin,
      body: { reason: "pool test" },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(await jobsOf(failed!)).toEqual(["vigil-run.demo.noop/ops-pool"]);
  });
});
