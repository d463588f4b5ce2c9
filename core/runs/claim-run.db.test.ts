import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import type { PgBoss } from "pg-boss";
import { useTestDatabase } from "../../test/db";
import { enqueueRun, insertRun, insertSchedule, runEvents, runState, startTestBoss } from "../../test/run-fixtures";
import { withTransaction } from "../db/pool";
import { jobIdFor } from "../queue/job-id";
import { claimRun, type ClaimResult } from "./claim-run";
import { finishRun } from "./finish-run";

const db = useTestDatabase("claim_run");
let pool: pg.Pool;
let boss: PgBoss;

beforeAll(async () => {
  pool = new pg.Pool({ connectionString: db.url, max: 4 });
  boss = await startTestBoss(db.url);
});

afterAll(async () => {
  await boss?.stop({ graceful: false, close: true });
  await pool?.end();
});

const claim = (runId: string, attempt = 1, wake = 0, workerId = "w-test"): Promise<ClaimResult> =>
  withTransaction((tx) => claimRun(tx, boss, { runId, attempt, jobId: jobIdFor(runId, attempt, wake), workerId }), pool);

async function queuedRun(schedule: Parameters<typeof insertSchedule>[1], inMs = 0, kind: "manual" | "scheduled" = "manual"): Promise<string> {
  const s = await insertSchedule(pool, schedule);
  const id = await insertRun(pool, s, { inMs, kind });
  await enqueueRun(pool, boss, id);
  return id;
}

describe("claimRun", () => {
  it("starts a queued run once; the same job delivered again runs nothing and is recorded", async () => {
    const id = await queuedRun({ handler: "demo.noop" });
    const first = await claim(id);
    expect(first).toMatchObject({ kind: "start", run: { runId: id, attempt: 1, handler: "demo.noop" } });
    expect(await claim(id)).toEqual({ kind: "suppressed", reason: "run is already running" });
    // A re-sent copy (another job id for the same attempt) is suppressed the same way.
    expect((await claim(id, 1, 5)).kind).toBe("suppressed");
    const r = await runState(pool, id);
    expect(r).toMatchObject({ state: "running", attempt: 1, worker_id: "w-test" });
    expect(r.lateness_ms).toBeGreaterThanOrEqual(0);
    const types = (await runEvents(pool, id)).map((e) => e.type);
    expect(types).toEqual(["enqueued", "started", "duplicate_delivery_suppressed", "duplicate_delivery_suppressed"]);
    const { rows } = await pool.query(`SELECT count(*)::int AS n FROM attempts WHERE run_id = $1`, [id]);
    expect(rows[0].n).toBe(1);
  });

  it("refuses a job for the wrong attempt", async () => {
    const id = await queuedRun({ handler: "demo.noop" });
    expect(await claim(id, 2)).toMatchObject({ kind: "suppressed", reason: expect.stringMatching(/attempt 2/) });
    expect((await runState(pool, id)).state).toBe("queued");
  });

  it("marks a run missed when its starting deadline passed on the database clock", async () => {
    const id = await queuedRun({ handler: "demo.noop", startingDeadlineSeconds: 1 }, -5000);
    expect(await claim(id)).toEqual({ kind: "missed" });
    const r = await runState(pool, id);
    expect(r.state).toBe("missed");
    expect(r.finished_at).not.toBeNull();
    expect((await runEvents(pool, id)).map((e) => e.type)).toContain("missed");
  });

  it("does not start a scheduled run of a paused schedule", async () => {
    const id = await queuedRun({ handler: "demo.noop" }, 0, "scheduled");
    await pool.query(`UPDATE schedules SET paused_at = now() WHERE id = (SELECT schedule_id FROM runs WHERE id = $1)`, [id]);
    expect(await claim(id)).toEqual({ kind: "paused" });
    expect((await runState(pool, id)).state).toBe("paused");
  });

  it("accepts a retry only for the next attempt, after the previous attempt ended", async () => {
    const id = await queuedRun({ handler: "demo.flaky", retryMaxAttempts: 2, retryBaseSeconds: 0, retryMaxSeconds: 0 });
    expect((await claim(id)).kind).toBe("start");
    const done = await withTransaction(
      (tx) => finishRun(tx, boss, { runId: id, attempt: 1, workerId: "w-test", jobId: jobIdFor(id, 1), outcome: { kind: "failed", error: "boom" }, durationMs: 5 }),
      pool,
    );
    expect(done.state).toBe("retrying");
    expect(done.nextAttemptAt).toBeInstanceOf(Date);
    const r = await runState(pool, id);
    expect(r.next_attempt_at).toEqual(done.nextAttemptAt);
    expect((await claim(id, 1)).kind).toBe("suppressed");
    expect(await claim(id, 2)).toMatchObject({ kind: "start", run: { attempt: 2 } });
  });

  it("discards an outcome reported for an attempt the run no longer belongs to", async () => {
    const id = await queuedRun({ handler: "demo.noop" });
    await claim(id);
    const res = await withTransaction(
      (tx) => finishRun(tx, boss, { runId: id, attempt: 1, workerId: "someone-else", jobId: null, outcome: { kind: "succeeded", result: {} }, durationMs: 1 }),
      pool,
    );
    expect(res.state).toBe("running");
    expect((await runEvents(pool, id)).map((e) => e.type)).toContain("result_discarded");
  });
});
