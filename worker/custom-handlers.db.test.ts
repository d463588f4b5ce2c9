// Bring your own jobs, with real worker processes: handler modules from a folder outside the checkout,
// advertised to the database, scheduled through the API, and runs routed only to workers that serve them.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useTestDatabase, usePoolAndBoss } from "../test/db";
import { createTestToken } from "../test/auth";
import { callRoute } from "../test/call-route";
import { createRuns, insertSchedule } from "../test/run-fixtures";
import { waitFor } from "../test/wait-for";
import { startWarmWorker } from "../test/warm-worker";
import { startWorker, type TestWorker } from "../test/worker-process";
import { evaluateAlerts } from "../core/alerts/evaluate-alerts";
import { WORKER_CONFIG_EXIT_CODE } from "./exit-codes";
import * as schedulesRoute from "../app/api/schedules/route";
import * as handlersRoute from "../app/api/handlers/route";

const db = useTestDatabase("custom_handlers");
const h = usePoolAndBoss(db);
const workers: TestWorker[] = [];
let jobs: string;

// A user's jobs folder: no package.json, no node_modules, only "vigil/sdk" to import.
const JOB = (name: string) => `
import { defineHandler, z } from "vigil/sdk";

export const job = defineHandler({
  name: ${JSON.stringify(name)},
  description: "counts into acme_effects once per occurrence",
  payload: z.strictObject({ n: z.number().int().min(1) }),
  async run(payload, ctx) {
    const done = await ctx.once("acme:" + ctx.idempotencyKey, async (tx) => {
      await tx.query("INSERT INTO acme_effects VALUES ($1, $2, pg_backend_pid(), $3)", [ctx.idempotencyKey, ${JSON.stringify(name)}, payload.n]);
    });
    ctx.log("info", "acme job ran", { first: done.ran });
    return { records: payload.n };
  },
});
`;

beforeAll(async () => {
  await h.pool.query("CREATE TABLE acme_effects (key text PRIMARY KEY, handler text, pid int, n int)");
  jobs = fs.mkdtempSync(path.join(os.tmpdir(), "acme-jobs-"));
  fs.writeFileSync(path.join(jobs, "alpha.ts"), JOB("acme.alpha"));
  fs.writeFileSync(path.join(jobs, "beta.ts"), JOB("acme.beta"));
});

afterAll(async () => {
  await Promise.all(workers.map((w) => w.kill()));
  fs.rmSync(jobs, { recursive: true, force: true });
});

async function start(serve: string): Promise<TestWorker> {
  const w = await startWarmWorker(db.url, { VIGIL_PLAN_AHEAD_SECONDS: "30" }, 180_000, ["--handlers", jobs, "--serve", serve]);
  workers.push(w);
  return w;
}

async function terminal(ids: string[]): Promise<{ id: string; state: string; worker_id: string }[]> {
  return waitFor(
    `${ids.length} runs to finish`,
    async () => {
      const { rows } = await h.pool.query(`SELECT id, state, worker_id FROM runs WHERE id = ANY($1::uuid[]) AND finished_at IS NOT NULL`, [
        ids,
      ]);
      return rows.length === ids.length ? rows : undefined;
    },
    { timeoutMs: 120_000, intervalMs: 200 },
  );
}

describe("handlers from the user's own folder", () => {
  it("a worker loads them, advertises them, and runs a schedule created through the API", async () => {
    const w = await start("*");
    const workerId = await w.workerId();
    const token = await createTestToken(db.url, "operator");

    const listed = await callRoute(handlersRoute.GET, { token });
    const alpha = listed.body.handlers.find((x: { name: string }) => x.name === "acme.alpha");
    expect(alpha).toMatchObject({ builtin: false, liveWorkers: 1, source: path.join(jobs, "alpha.ts") });
    expect(alpha.payloadSchema).toMatchObject({ required: ["n"] });

    // The advertised schema is the one the API validates against.
    const bad = await callRoute(schedulesRoute.POST, {
      method: "POST",
      token,
      body: { name: "acme-bad", handler: "acme.alpha", payload: { n: 0 }, trigger: { kind: "interval", everySeconds: 2 } },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.error.fields).toHaveProperty("payload.n");

    const created = await callRoute(schedulesRoute.POST, {
      method: "POST",
      token,
      body: {
        name: "acme-every-2s",
        handler: "acme.alpha",
        payload: { n: 3 },
        trigger: { kind: "interval", everySeconds: 2 },
        expectRecordsMin: 1,
      },
    });
    expect(created.status).toBe(200);
    const run = await waitFor(
      "a run of the custom handler to succeed",
      async () =>
        (
          await h.pool.query(`SELECT id, worker_id, records FROM runs WHERE schedule_id = $1 AND state = 'succeeded' LIMIT 1`, [
            created.body.schedule.id,
          ])
        ).rows[0],
      { timeoutMs: 60_000, intervalMs: 200 },
    );
    expect(run).toMatchObject({ worker_id: workerId, records: 3 });
    const { rows: logs } = await h.pool.query(`SELECT message FROM run_logs WHERE run_id = $1`, [run.id]);
    expect(logs.map((l) => l.message)).toContain("acme job ran");
    await callRoute((await import("../app/api/schedules/[id]/route")).DELETE, {
      method: "DELETE",
      token,
      params: { id: created.body.schedule.id },
    });
    await w.stop();
  });

  it("two workers with different handler sets never take each other's runs; a handler without a worker waits, alerts, and drains when one starts", async () => {
    const alphaWorker = await start("acme.alpha");
    const betaWorker = await start("acme.beta");
    const alphaId = await alphaWorker.workerId();
    const betaId = await betaWorker.workerId();
    const alpha = await insertSchedule(h.pool, { handler: "acme.alpha", payload: { n: 1 }, overlapPolicy: "allow" });
    const beta = await insertSchedule(h.pool, { handler: "acme.beta", payload: { n: 1 }, overlapPolicy: "allow" });

    const alphaRuns = await createRuns(h.pool, h.boss, alpha, 150);
    const betaRuns = await createRuns(h.pool, h.boss, beta, 150);
    const done = await terminal([...alphaRuns, ...betaRuns]);
    const by = (ids: string[]) => done.filter((r) => ids.includes(r.id));
    expect(by(alphaRuns).every((r) => r.state === "succeeded" && r.worker_id === alphaId)).toBe(true);
    expect(by(betaRuns).every((r) => r.state === "succeeded" && r.worker_id === betaId)).toBe(true);

    // The only worker for acme.beta stops: its due runs wait, visibly.
    await betaWorker.stop();
    const waiting = await createRuns(h.pool, h.boss, beta, 20);
    const alert = await waitFor(
      "a no_handler_worker alert for the beta schedule",
      async () => {
        await evaluateAlerts(h.pool, {
          deadAfterMs: 10_000,
          plannerLagThresholdMs: 60_000,
          latenessWindowSeconds: 900,
          kinds: ["no_handler_worker"],
        });
        const { rows } = await h.pool.query(
          `SELECT message, resolved_at FROM alerts WHERE kind = 'no_handler_worker' AND schedule_id = $1`,
          [beta],
        );
        return rows[0];
      },
      { timeoutMs: 30_000, intervalMs: 500 },
    );
    expect(alert.message).toMatch(/no live worker serves handler acme\.beta/);
    const { rows: still } = await h.pool.query(`SELECT count(*)::int AS n FROM runs WHERE id = ANY($1::uuid[]) AND state = 'queued'`, [
      waiting,
    ]);
    expect(still[0].n).toBe(20);

    const again = await start("acme.beta");
    const againId = await again.workerId();
    const drained = await terminal(waiting);
    expect(drained.every((r) => r.state === "succeeded" && r.worker_id === againId)).toBe(true);
    await waitFor(
      "the alert to resolve",
      async () => {
        await evaluateAlerts(h.pool, {
          deadAfterMs: 10_000,
          plannerLagThresholdMs: 60_000,
          latenessWindowSeconds: 900,
          kinds: ["no_handler_worker"],
        });
        const { rows } = await h.pool.query(`SELECT resolved_at FROM alerts WHERE kind = 'no_handler_worker' AND schedule_id = $1`, [beta]);
        return rows[0]?.resolved_at;
      },
      { timeoutMs: 30_000, intervalMs: 500 },
    );
    // Every effect happened exactly once per succeeded run.
    const { rows: effects } = await h.pool.query(
      `SELECT e.handler, count(*)::int AS effects, (SELECT count(*)::int FROM runs r WHERE r.handler = e.handler AND r.state = 'succeeded') AS runs
         FROM acme_effects e GROUP BY e.handler ORDER BY e.handler`,
    );
    expect(effects.map((e) => e.effects)).toEqual(effects.map((e) => e.runs));
    expect(effects.find((e) => e.handler === "acme.beta")?.effects).toBe(170);
  });

  it("a broken handler module stops the worker's start with one line naming the file", async () => {
    const broken = fs.mkdtempSync(path.join(os.tmpdir(), "acme-broken-"));
    fs.writeFileSync(path.join(broken, "ok.ts"), JOB("acme.ok"));
    fs.writeFileSync(path.join(broken, "oops.ts"), `import { defineHandler } from "vigil/sdk";\nthrow new Error("missing API_KEY");\n`);
    try {
      const w = startWorker(db.url, {}, ["--handlers", broken]);
      expect(await w.exited).toBe(WORKER_CONFIG_EXIT_CODE);
      const errLines = w.logs.filter((l) => l.includes("cannot start"));
      expect(errLines).toHaveLength(1);
      expect(errLines[0]).toBe(`vigil worker: cannot start: ${path.join(broken, "oops.ts")}: could not load: missing API_KEY`);
    } finally {
      fs.rmSync(broken, { recursive: true, force: true });
    }
  });
});
