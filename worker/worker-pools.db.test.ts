// Worker pools per team, with real worker processes: a team assigned pool P has its runs executed only by a worker
// started with --pool P, the default team's only by a worker without a pool, and a run of P while no P worker is
// alive waits in its queue (it is neither taken by the other worker nor lost) until one starts.
import { afterAll, describe, expect, it } from "vitest";
import { useTestDatabase, usePoolAndBoss } from "../test/db";
import { createTestToken } from "../test/auth";
import { callRoute } from "../test/call-route";
import { createRun, insertSchedule } from "../test/run-fixtures";
import { waitFor } from "../test/wait-for";
import { startWarmWorker } from "../test/warm-worker";
import type { TestWorker } from "../test/worker-process";
import * as triggerRoute from "../app/api/schedules/[id]/trigger/route";
import * as codeExecutionRoute from "../app/api/teams/[id]/code-execution/route";

const db = useTestDatabase("worker_pools");
const h = usePoolAndBoss(db);
const workers: TestWorker[] = [];

afterAll(async () => {
  await Promise.all(workers.map((w) => w.kill()));
});

async function start(args: string[] = []): Promise<{ w: TestWorker; id: string }> {
  const w = await startWarmWorker(db.url, { VIGIL_PLAN_AHEAD_SECONDS: "30" }, 180_000, args);
  workers.push(w);
  return { w, id: await w.workerId() };
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
});
