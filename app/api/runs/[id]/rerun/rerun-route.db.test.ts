// Re-run through the API with a real worker process: a failed occurrence whose money already moved is re-run
// as a new attempt of the same occurrence (same key), so ctx.once keeps the posting single; a succeeded run is
// refused; a missed occurrence re-run hours after its planned time raises no "late" alert.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useTestDatabase, usePoolAndBoss } from "@/test/db";
import { createTestToken } from "@/test/auth";
import { callRoute } from "@/test/call-route";
import { createRuns, insertSchedule } from "@/test/run-fixtures";
import { waitFor } from "@/test/wait-for";
import { startWarmWorker } from "@/test/warm-worker";
import type { TestWorker } from "@/test/worker-process";
import { evaluateAlerts } from "@/core/alerts/evaluate-alerts";
import { stopConsoleBoss } from "@/core/queue/console-boss";
import * as rerun from "./route";
import * as bulk from "../../bulk/route";

const db = useTestDatabase("rerun_route");
const h = usePoolAndBoss(db);
let worker: TestWorker;
let jobs: string;
let operator: string;
let viewer: string;

// Posts money once per occurrence, then "notifies" — which fails while the attempt is <= failAttempts.
const PAY = `
import { defineHandler, z } from "vigil/sdk";
export const job = defineHandler({
  name: "acme.pay",
  description: "posts a payment once per occurrence, then notifies",
  payload: z.strictObject({ from: z.string(), to: z.string(), amount: z.number().int().min(1), failAttempts: z.number().int().min(0).default(0) }),
  async run(p, ctx) {
    const posted = await ctx.once("acme.pay:" + ctx.idempotencyKey, async (tx) => {
      await tx.query("INSERT INTO ledger_accounts (id) VALUES ($1), ($2) ON CONFLICT (id) DO NOTHING", [p.from, p.to]);
      await tx.query("UPDATE ledger_accounts SET balance = balance - $2::bigint WHERE id = $1", [p.from, p.amount]);
      await tx.query("UPDATE ledger_accounts SET balance = balance + $2::bigint WHERE id = $1", [p.to, p.amount]);
      await tx.query("INSERT INTO ledger_entries (idempotency_key, from_account, to_account, amount, run_id) VALUES ($1, $2, $3, $4, $5)",
        [ctx.idempotencyKey, p.from, p.to, p.amount, ctx.runId]);
    });
    ctx.log("info", posted.ran ? "posted" : "already posted", { attempt: ctx.attempt });
    if (ctx.attempt <= p.failAttempts) throw new Error("notification service unavailable");
    return { records: 1 };
  },
});
`;

const get = (id: string, token = operator) => callRoute(rerun.GET, { token, params: { id } });
const post = (id: string, body: unknown, token = operator) => callRoute(rerun.POST, { method: "POST", token, body, params: { id } });
const bulkPost = (body: unknown, token = operator) => callRoute(bulk.POST, { method: "POST", token, body });
const q = async (text: string, values: unknown[] = []) => (await h.pool.query(text, values)).rows;
const balances = async (...ids: string[]) =>
  Object.fromEntries(
    (await q(`SELECT id, balance::int AS b FROM ledger_accounts WHERE id = ANY($1::text[])`, [ids])).map((r) => [r.id, r.b]),
  );
const finished = (id: string, states: string[]) =>
  waitFor(
    `run ${id} to end ${states.join("/")}`,
    async () => (await q(`SELECT * FROM runs WHERE id = $1 AND state = ANY($2::text[])`, [id, states]))[0],
    {
      timeoutMs: 90_000,
      intervalMs: 200,
    },
  );

beforeAll(async () => {
  jobs = fs.mkdtempSync(path.join(os.tmpdir(), "acme-pay-"));
  fs.writeFileSync(path.join(jobs, "pay.ts"), PAY);
  operator = await createTestToken(db.url, "operator");
  viewer = await createTestToken(db.url, "viewer");
  worker = await startWarmWorker(db.url, { VIGIL_PLAN_AHEAD_SECONDS: "30" }, 180_000, ["--handlers", jobs, "--serve", "*"]);
});

afterAll(async () => {
  await worker?.kill();
  await stopConsoleBoss();
  fs.rmSync(jobs, { recursive: true, force: true });
});

describe("re-run an occurrence", () => {
  it("a failed run whose payment was made is re-run as attempt 2 of the same occurrence: the money moves once", async () => {
    const s = await insertSchedule(h.pool, { handler: "acme.pay", payload: { from: "ops", to: "vendor", amount: 25, failAttempts: 1 } });
    const [runId] = await createRuns(h.pool, h.boss, s, 1);
    const failed = await finished(runId!, ["failed"]);
    expect(failed.error).toContain("notification service unavailable");
    expect(await balances("ops", "vendor")).toEqual({ ops: -25, vendor: 25 });

    // The preview says what will happen before anything does.
    const preview = await get(runId!, viewer);
    expect(preview.status).toBe(200);
    expect(preview.body).toMatchObject({
      state: "failed",
      nextAttempt: 2,
      onceEffects: 1,
      refusal: null,
      idempotencyKey: failed.idempotency_key,
    });
    expect(preview.body.onceKeys).toEqual([`acme.pay:${failed.idempotency_key}`]);

    expect((await post(runId!, { reason: "vendor API back" }, viewer)).status).toBe(403);
    const noReason = await post(runId!, {});
    expect(noReason.status).toBe(422);
    expect(noReason.body.error.fields).toHaveProperty("reason");
    expect((await post(runId!, { reason: "x", extra: 1 })).status).toBe(422);
    expect((await post("00000000-0000-4000-8000-000000000000", { reason: "x" })).status).toBe(404);

    const r = await post(runId!, { reason: "vendor notification API is back" });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toMatchObject({ runId, attempt: 2, state: "retrying", onceEffects: 1 });
    // A second click is refused: while the re-run is pending or running (it has not ended), or, when the worker was
    // quicker than the click, because it succeeded.
    const secondClick = await post(runId!, { reason: "again" });
    expect(secondClick.status).toBe(409);
    expect(["run_not_rerunnable", "run_succeeded"]).toContain(secondClick.body.error.code);

    const done = await finished(runId!, ["succeeded"]);
    expect(done).toMatchObject({ attempt: 2, reruns: 1, idempotency_key: failed.idempotency_key });
    // Balances moved once across the original attempt and the re-run.
    expect(await balances("ops", "vendor")).toEqual({ ops: -25, vendor: 25 });
    expect(await q(`SELECT count(*)::int AS n FROM ledger_entries WHERE idempotency_key = $1`, [failed.idempotency_key])).toEqual([
      { n: 1 },
    ]);
    const logs = await q(`SELECT attempt, message FROM run_logs WHERE run_id = $1 ORDER BY id`, [runId]);
    expect(logs.map((l) => `${l.attempt}:${l.message}`)).toEqual(expect.arrayContaining(["1:posted", "2:already posted"]));
    const attempts = await q(`SELECT number, state FROM attempts WHERE run_id = $1 ORDER BY number`, [runId]);
    expect(attempts).toEqual([
      { number: 1, state: "failed" },
      { number: 2, state: "succeeded" },
    ]);
    // The trace says who and why; the audit has it too.
    const [ev] = await q(`SELECT attempt, message, data FROM run_events WHERE run_id = $1 AND type = 'rerun_requested'`, [runId]);
    expect(ev).toMatchObject({
      attempt: 2,
      data: { reason: "vendor notification API is back", actor: expect.any(String), onceEffects: 1 },
    });
    const [audit] = await q(`SELECT reason, before, after FROM audit_events WHERE action = 'run.rerun' AND target_id = $1`, [runId]);
    expect(audit).toMatchObject({
      reason: "vendor notification API is back",
      before: { state: "failed", attempt: 1 },
      after: { attempt: 2 },
    });

    // Succeeded now: a re-run is refused (409); the preview says why.
    const again = await post(runId!, { reason: "oops" });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe("run_succeeded");
    expect(again.body.error.message).toContain("new occurrence");
    expect((await get(runId!)).body.refusal.code).toBe("run_succeeded");
  });

  it("missed occurrences re-run hours after their planned time run, but raise no late alert and stay out of the lateness p95", async () => {
    const s = await insertSchedule(h.pool, { handler: "ledger.post", payload: { from: "m1", to: "m2", amount: 3 } });
    await q(`UPDATE schedules SET lateness_max_ms = 1000, lateness_p95_slo_ms = 1000 WHERE id = $1`, [s]);
    // What the planner leaves behind when nothing started the runs before their starting deadline (a worker was down).
    const missed = await q(
      `INSERT INTO runs (schedule_id, kind, planned_at, due_at, idempotency_key, state, handler, payload, timeout_seconds, grace_seconds, finished_at)
       SELECT s.id, 'scheduled', now() - make_interval(mins => 180 - m), now() - make_interval(mins => 180 - m), s.id || ':missed-' || m, 'missed',
              s.handler, s.payload, 30, 1, now() - interval '2 hours'
         FROM schedules s, generate_series(1, 3) m WHERE s.id = $1 RETURNING id`,
      [s],
    );
    expect((await get(missed[0].id)).body).toMatchObject({ state: "missed", nextAttempt: 1, onceEffects: 0, refusal: null });
    for (const m of missed) expect((await post(m.id, { reason: "worker was down overnight" })).status).toBe(200);
    for (const m of missed) expect((await finished(m.id, ["succeeded"])).lateness_ms).toBeGreaterThan(2 * 3600_000);
    expect(await balances("m1", "m2")).toEqual({ m1: -9, m2: 9 });
    await evaluateAlerts(h.pool, { deadAfterMs: 10_000, plannerLagThresholdMs: 60_000, latenessWindowSeconds: 4 * 3600, kinds: ["late"] });
    expect(await q(`SELECT dedupe_key FROM alerts WHERE schedule_id = $1 AND kind = 'late' AND resolved_at IS NULL`, [s])).toEqual([]);
  });
});

describe("bulk actions", () => {
  it("re-runs all failed runs of a time range: dry-run count first, one audit row per run plus one for the bulk, money moved once each", async () => {
    const s = await insertSchedule(h.pool, { handler: "acme.pay", payload: { from: "bulk-a", to: "bulk-b", amount: 10, failAttempts: 1 } });
    const [{ from }] = await q(`SELECT clock_timestamp() - interval '1 second' AS from`);
    const ids = await createRuns(h.pool, h.boss, s, 3);
    for (const id of ids) await finished(id, ["failed"]);
    const [{ to }] = await q(`SELECT clock_timestamp() + interval '1 minute' AS to`);
    expect(await balances("bulk-a", "bulk-b")).toEqual({ "bulk-a": -30, "bulk-b": 30 });
    const range = { from: from.toISOString(), to: to.toISOString(), scheduleId: s };

    expect((await bulkPost({ action: "rerun", reason: "x", ...range, dryRun: true }, viewer)).status).toBe(403);
    const noRange = await bulkPost({ action: "rerun", reason: "x", scheduleId: s });
    expect(noRange.status).toBe(422);
    expect(noRange.body.error.fields).toHaveProperty("from");
    const wrongState = await bulkPost({ action: "rerun", reason: "x", ...range, states: ["succeeded"] });
    expect(wrongState.status).toBe(422);
    expect(wrongState.body.error.fields.states).toContain("not succeeded");
    expect((await bulkPost({ action: "rerun", ...range })).body.error.fields).toHaveProperty("reason");

    const dry = await bulkPost({ action: "rerun", ...range, dryRun: true });
    expect(dry.status).toBe(200);
    expect(dry.body).toMatchObject({ dryRun: true, count: 3, bulkId: null });
    expect([...dry.body.runIds].sort()).toEqual([...ids].sort());
    expect(await q(`SELECT count(*)::int AS n FROM runs WHERE id = ANY($1::uuid[]) AND state = 'failed'`, [ids])).toEqual([{ n: 3 }]);

    const done = await bulkPost({ action: "rerun", reason: "vendor back", ...range });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ dryRun: false, count: 3, succeeded: 3, failed: 0 });
    for (const id of ids) expect(await finished(id, ["succeeded"])).toMatchObject({ attempt: 2, reruns: 1 });
    expect(await balances("bulk-a", "bulk-b")).toEqual({ "bulk-a": -30, "bulk-b": 30 });
    expect(await q(`SELECT count(*)::int AS n FROM ledger_entries WHERE run_id = ANY($1::uuid[])`, [ids])).toEqual([{ n: 3 }]);
    const audits = await q(`SELECT action, target_id, after FROM audit_events WHERE after->>'bulkId' = $1 ORDER BY id`, [done.body.bulkId]);
    expect(audits.map((a) => a.action)).toEqual(["run.rerun", "run.rerun", "run.rerun", "runs.bulk_rerun"]);
    expect(audits.at(-1).after).toMatchObject({ count: 3, succeeded: 3, failed: 0 });

    // Exact runs with one that cannot be re-run (it succeeded now): reported per item, the others go on.
    const more = await createRuns(h.pool, h.boss, s, 1);
    await finished(more[0]!, ["failed"]);
    const partial = await bulkPost({ action: "rerun", reason: "mixed", runIds: [ids[0], more[0]] });
    expect(partial.status).toBe(200);
    expect(partial.body).toMatchObject({ count: 2, succeeded: 1, failed: 1 });
    expect(partial.body.items.find((i: { runId: string }) => i.runId === ids[0])).toMatchObject({
      ok: false,
      error: { code: "run_succeeded" },
    });
    expect(partial.body.items.find((i: { runId: string }) => i.runId === more[0])).toMatchObject({ ok: true, state: "retrying" });
    await finished(more[0]!, ["succeeded"]);
    expect(await balances("bulk-a", "bulk-b")).toEqual({ "bulk-a": -40, "bulk-b": 40 });
  });

  it("cancels all running and queued runs of a schedule, and refuses more than 500", async () => {
    const s = await insertSchedule(h.pool, { handler: "demo.hang", timeoutSeconds: 600, graceSeconds: 1 });
    const ids = await createRuns(h.pool, h.boss, s, 3);
    await waitFor(
      "3 hanging runs to start",
      async () => (await q(`SELECT count(*)::int AS n FROM runs WHERE id = ANY($1::uuid[]) AND state = 'running'`, [ids]))[0].n === 3,
      {
        timeoutMs: 60_000,
      },
    );
    expect((await bulkPost({ action: "cancel", reason: "x" })).body.error.fields).toHaveProperty("scheduleId");
    const dry = await bulkPost({ action: "cancel", reason: "runaway", scheduleId: s, dryRun: true });
    expect(dry.body).toMatchObject({ count: 3 });
    const done = await bulkPost({ action: "cancel", reason: "runaway", scheduleId: s });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ count: 3, succeeded: 3, failed: 0 });
    for (const id of ids) await finished(id, ["cancelled"]);
    expect(
      await q(`SELECT count(*)::int AS n FROM audit_events WHERE action = 'run.cancel' AND target_id = ANY($1::text[])`, [ids]),
    ).toEqual([{ n: 3 }]);
    expect(await q(`SELECT after->'count' AS n FROM audit_events WHERE action = 'runs.bulk_cancel' AND target_id = $1`, [s])).toEqual([
      { n: 3 },
    ]);

    // 501 queued runs: refused whole, nothing cancelled.
    const big = await insertSchedule(h.pool, { handler: "demo.noop" });
    await q(
      `INSERT INTO runs (schedule_id, kind, planned_at, due_at, idempotency_key, state, handler, payload, timeout_seconds, grace_seconds)
       SELECT $1, 'manual', now() + make_interval(days => 300), now() + make_interval(days => 300), 'big:' || g, 'queued', 'demo.noop', '{}', 30, 1
         FROM generate_series(1, 501) g`,
      [big],
    );
    for (const dryRun of [true, false]) {
      const tooMany = await bulkPost({ action: "cancel", reason: "all", scheduleId: big, dryRun });
      expect(tooMany.status).toBe(422);
      expect(tooMany.body.error).toMatchObject({ code: "too_many_runs", message: expect.stringContaining("at most 500") });
    }
    expect(await q(`SELECT count(*)::int AS n FROM runs WHERE schedule_id = $1 AND state = 'queued'`, [big])).toEqual([{ n: 501 }]);
  });
});
