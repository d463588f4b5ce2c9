import { describe, expect, it } from "vitest";
import { usePoolAndBoss, useTestDatabase } from "../../../test/db";
import { enqueueRun, insertRun, insertSchedule, runEvents, runState } from "../../../test/run-fixtures";
import { withTransaction } from "../../db/pool";
import { jobIdFor } from "../../queue/job-id";
import { claimRun, type ClaimResult } from "./claim-run";
import { claimFreeRuns } from "./claim-free-runs";
import { finishRun, type FinishRequest } from "../finish/finish-run";
import { finishFreeRuns } from "../finish/finish-free-runs";

const db = useTestDatabase("claim_run");
const h = usePoolAndBoss(db);

const claim = (runId: string, attempt = 1, wake = 0, workerId = "w-test"): Promise<ClaimResult> =>
  withTransaction((tx) => claimRun(tx, h.boss, { runId, attempt, jobId: jobIdFor(runId, attempt, wake), workerId }), h.pool);

async function queuedRun(
  schedule: Parameters<typeof insertSchedule>[1],
  inMs = 0,
  kind: "manual" | "scheduled" = "manual",
): Promise<string> {
  const s = await insertSchedule(h.pool, schedule);
  const id = await insertRun(h.pool, s, { inMs, kind });
  await enqueueRun(h.pool, h.boss, id);
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
    const r = await runState(h.pool, id);
    expect(r).toMatchObject({ state: "running", attempt: 1, worker_id: "w-test" });
    expect(r.lateness_ms).toBeGreaterThanOrEqual(0);
    const types = (await runEvents(h.pool, id)).map((e) => e.type);
    expect(types).toEqual(["enqueued", "started", "duplicate_delivery_suppressed", "duplicate_delivery_suppressed"]);
    const { rows } = await h.pool.query(`SELECT count(*)::int AS n FROM attempts WHERE run_id = $1`, [id]);
    expect(rows[0].n).toBe(1);
  });

  it("refuses a job for the wrong attempt", async () => {
    const id = await queuedRun({ handler: "demo.noop" });
    expect(await claim(id, 2)).toMatchObject({ kind: "suppressed", reason: expect.stringMatching(/attempt 2/) });
    expect((await runState(h.pool, id)).state).toBe("queued");
  });

  it("marks a run missed when its starting deadline passed on the database clock", async () => {
    const id = await queuedRun({ handler: "demo.noop", startingDeadlineSeconds: 1 }, -5000);
    expect(await claim(id)).toEqual({ kind: "missed" });
    const r = await runState(h.pool, id);
    expect(r.state).toBe("missed");
    expect(r.finished_at).not.toBeNull();
    expect((await runEvents(h.pool, id)).map((e) => e.type)).toContain("missed");
  });

  it("does not start a scheduled run of a paused schedule", async () => {
    const id = await queuedRun({ handler: "demo.noop" }, 0, "scheduled");
    await h.pool.query(`UPDATE schedules SET paused_at = now() WHERE id = (SELECT schedule_id FROM runs WHERE id = $1)`, [id]);
    expect(await claim(id)).toEqual({ kind: "paused" });
    expect((await runState(h.pool, id)).state).toBe("paused");
  });

  it("accepts a retry only for the next attempt, after the previous attempt ended", async () => {
    const id = await queuedRun({ handler: "demo.flaky", retryMaxAttempts: 2, retryBaseSeconds: 0, retryMaxSeconds: 0 });
    expect((await claim(id)).kind).toBe("start");
    const done = await withTransaction(
      (tx) =>
        finishRun(tx, h.boss, {
          runId: id,
          attempt: 1,
          workerId: "w-test",
          jobId: jobIdFor(id, 1),
          outcome: { kind: "failed", error: "boom" },
          durationMs: 5,
        }),
      h.pool,
    );
    expect(done.state).toBe("retrying");
    expect(done.nextAttemptAt).toBeInstanceOf(Date);
    const r = await runState(h.pool, id);
    expect(r.next_attempt_at).toEqual(done.nextAttemptAt);
    expect((await claim(id, 1)).kind).toBe("suppressed");
    expect(await claim(id, 2)).toMatchObject({ kind: "start", run: { attempt: 2 } });
  });

  it("discards an outcome reported for an attempt the run no longer belongs to", async () => {
    const id = await queuedRun({ handler: "demo.noop" });
    await claim(id);
    const res = await withTransaction(
      (tx) =>
        finishRun(tx, h.boss, {
          runId: id,
          attempt: 1,
          workerId: "someone-else",
          jobId: null,
          outcome: { kind: "succeeded", result: {} },
          durationMs: 1,
        }),
      h.pool,
    );
    expect(res.state).toBe("running");
    expect((await runEvents(h.pool, id)).map((e) => e.type)).toContain("result_discarded");
  });
});

describe("the one-round-trip paths against the locked ones (claimFreeRuns, finishFreeRuns)", () => {
  const req = (runId: string, attempt = 1) => ({ runId, attempt, jobId: jobIdFor(runId, attempt), workerId: "w-test" });
  const success = (runId: string, records?: number, workerId = "w-test"): FinishRequest => ({
    runId,
    attempt: 1,
    workerId,
    jobId: jobIdFor(runId, 1),
    outcome: { kind: "succeeded", result: records === undefined ? {} : { records } },
    durationMs: 3,
  });

  it("starts free runs of every policy; late, paused, wrong-attempt and repeated deliveries go to the locked claim untouched", async () => {
    const allow = await queuedRun({ handler: "demo.noop" });
    const skip = await queuedRun({ handler: "demo.noop", overlapPolicy: "skip" });
    const grouped = await queuedRun({ handler: "demo.noop", concurrencyGroup: "free-path-test" });
    const late = await queuedRun({ handler: "demo.noop", startingDeadlineSeconds: 1 }, -5000);
    const paused = await queuedRun({ handler: "demo.noop" }, 0, "scheduled");
    await h.pool.query(`UPDATE schedules SET paused_at = now() WHERE id = (SELECT schedule_id FROM runs WHERE id = $1)`, [paused]);
    const wrongAttempt = await queuedRun({ handler: "demo.noop" });
    const reqs = [req(allow), req(skip), req(grouped), req(late), req(paused), req(wrongAttempt, 2), req(allow)];
    const results = await claimFreeRuns(h.pool, reqs);
    expect(results[0]).toMatchObject({ kind: "start", run: { runId: allow, attempt: 1, handler: "demo.noop" } });
    expect(results[0]?.kind === "start" && results[0].run.latenessMs).toBeGreaterThanOrEqual(0);
    expect(results.slice(1, 3).map((r) => r?.kind)).toEqual(["start", "start"]);
    expect(results.slice(3)).toEqual([undefined, undefined, undefined, undefined]);
    for (const id of [late, paused, wrongAttempt]) {
      expect((await runState(h.pool, id)).state).toBe("queued");
      expect((await runEvents(h.pool, id)).map((e) => e.type)).toEqual(["enqueued"]);
    }
    // The locked claim then decides the rest as it always did (the repeated delivery is suppressed).
    expect(await claim(allow)).toEqual({ kind: "suppressed", reason: "run is already running" });
    expect(await claim(late)).toEqual({ kind: "missed" });
    expect(await claim(paused)).toEqual({ kind: "paused" });
  });

  it("writes what the locked claim writes for the same start", async () => {
    const viaFree = await queuedRun({ handler: "demo.noop" });
    const viaLocks = await queuedRun({ handler: "demo.noop" });
    await claimFreeRuns(h.pool, [req(viaFree)]);
    await claim(viaLocks);
    const shape = async (id: string) => {
      const r = await runState(h.pool, id);
      const { rows } = await h.pool.query(
        `SELECT number, state, worker_id, started_at IS NOT NULL AS started FROM attempts WHERE run_id = $1`,
        [id],
      );
      const events = (await runEvents(h.pool, id)).map((e) => ({
        type: e.type,
        attempt: e.attempt,
        message: e.message.replace(/\d+ ms/, "N ms"),
        keys: Object.keys(e.data ?? {}).sort(),
      }));
      return {
        state: r.state,
        attempt: r.attempt,
        worker: r.worker_id,
        started: r.started_at !== null,
        heartbeat: r.heartbeat_at !== null,
        lateness: typeof r.lateness_ms,
        attempts: rows,
        events,
      };
    };
    expect(await shape(viaFree)).toEqual(await shape(viaLocks));
  });

  it("skips a run another transaction holds instead of waiting for it", async () => {
    const id = await queuedRun({ handler: "demo.noop" });
    const holder = await h.pool.connect();
    try {
      await holder.query("BEGIN");
      await holder.query(`SELECT 1 FROM runs WHERE id = $1 FOR NO KEY UPDATE`, [id]);
      expect(await claimFreeRuns(h.pool, [req(id)])).toEqual([undefined]);
      expect(await finishFreeRuns(h.pool, [success(id)])).toEqual([undefined]);
    } finally {
      await holder.query("ROLLBACK");
      holder.release();
    }
    expect((await claimFreeRuns(h.pool, [req(id)]))[0]?.kind).toBe("start");
  });

  it("does not start a retry while the previous attempt may still be alive", async () => {
    const id = await queuedRun({ handler: "demo.flaky", retryMaxAttempts: 2 });
    await claim(id);
    // The reaper's view of a lost attempt: the run waits for a retry, the attempt row still says running.
    await h.pool.query(`UPDATE runs SET state = 'retrying' WHERE id = $1`, [id]);
    expect(await claimFreeRuns(h.pool, [req(id, 2)])).toEqual([undefined]);
    await h.pool.query(`UPDATE attempts SET state = 'failed' WHERE run_id = $1`, [id]);
    expect(await claimFreeRuns(h.pool, [req(id, 2)])).toMatchObject([{ kind: "start", run: { attempt: 2 } }]);
  });

  it("records successes nobody waits on, grouped too; hollow, failed and no-longer-ours outcomes are left to finishRuns", async () => {
    const ok = await queuedRun({ handler: "demo.noop", expectRecordsMin: 2 });
    const hollow = await queuedRun({ handler: "demo.noop", expectRecordsMin: 2 });
    const failed = await queuedRun({ handler: "demo.noop" });
    const grouped = await queuedRun({ handler: "demo.noop", concurrencyGroup: "free-finish-test" });
    const stolen = await queuedRun({ handler: "demo.noop" });
    for (const id of [ok, hollow, failed, grouped, stolen]) expect((await claim(id)).kind).toBe("start");
    const reqs: FinishRequest[] = [
      success(ok, 3),
      success(hollow, 1),
      { ...success(failed), outcome: { kind: "failed", error: "boom" } },
      success(grouped),
      success(stolen, undefined, "someone-else"),
    ];
    const results = await finishFreeRuns(h.pool, reqs);
    expect(results[0]).toEqual({ state: "succeeded", recorded: true, settle: { jobId: jobIdFor(ok, 1), how: "complete" } });
    expect(results.slice(1)).toEqual([
      undefined,
      undefined,
      { state: "succeeded", recorded: true, settle: { jobId: jobIdFor(grouped, 1), how: "complete" } },
      undefined,
    ]);
    const r = await runState(h.pool, ok);
    expect(r).toMatchObject({ state: "succeeded", records: 3, duration_ms: 3 });
    expect(r.finished_at).not.toBeNull();
    const { rows } = await h.pool.query(`SELECT state, records, finished_at FROM attempts WHERE run_id = $1`, [ok]);
    expect(rows[0]).toMatchObject({ state: "succeeded", records: 3 });
    expect(rows[0].finished_at).toEqual(r.finished_at);
    const finished = (await runEvents(h.pool, ok)).find((e) => e.type === "finished");
    expect(finished).toMatchObject({
      attempt: 1,
      message: "succeeded in 3 ms with 3 record(s)",
      data: { state: "succeeded", records: 3, durationMs: 3 },
    });
    for (const id of [hollow, failed, stolen]) expect((await runState(h.pool, id)).state).toBe("running");
    // finishRuns then records them as before.
    const locked = await withTransaction((tx) => Promise.all([finishRun(tx, h.boss, reqs[1]!)]), h.pool);
    expect(locked[0]!.state).toBe("hollow");
  });
});
