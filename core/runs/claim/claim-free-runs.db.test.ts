import { describe, expect, it } from "vitest";
import { usePoolAndBoss, useTestDatabase } from "../../../test/db";
import { enqueueRun, insertRun, insertSchedule, runEvents, runState } from "../../../test/run-fixtures";
import { waitFor } from "../../../test/wait-for";
import { withTransaction } from "../../db/pool";
import { jobIdFor } from "../../queue/job-id";
import { claimRun, type ClaimResult } from "./claim-run";
import { CLAIM_FREE_RUNS_FUNCTION_BODY, claimFreeRuns } from "./claim-free-runs";
import { FINISH_FREE_RUNS_FUNCTION_BODY, finishFreeRuns } from "../finish/finish-free-runs";
import type { FinishRequest } from "../finish/finish-run";

const db = useTestDatabase("claim_free_runs");
const h = usePoolAndBoss(db);

const req = (runId: string, attempt = 1, wake = 0) => ({ runId, attempt, jobId: jobIdFor(runId, attempt, wake), workerId: "w-test" });
const claimLocked = (runId: string, wake = 0): Promise<ClaimResult> =>
  withTransaction((tx) => claimRun(tx, h.boss, req(runId, 1, wake)), h.pool);
const success = (runId: string): FinishRequest => ({
  runId,
  attempt: 1,
  workerId: "w-test",
  jobId: jobIdFor(runId, 1),
  outcome: { kind: "succeeded", result: {} },
  durationMs: 2,
});

async function queued(scheduleId: string, inMs = 0): Promise<string> {
  const id = await insertRun(h.pool, scheduleId, { inMs });
  await enqueueRun(h.pool, h.boss, id);
  return id;
}

describe("the one-round-trip claim and outcome of every overlap policy and group (claimFreeRuns, finishFreeRuns)", () => {
  it("runs the SQL functions the migration installed, built from the same rules as the TypeScript", async () => {
    const { rows } = await h.pool.query(
      `SELECT proname, prosrc FROM pg_proc WHERE proname IN ('vigil_claim_free_runs', 'vigil_finish_free_runs') ORDER BY proname`,
    );
    // A change to the rules (paused, starting deadline, the decision) must ship as a new migration replacing these.
    expect(rows.map((r) => r.prosrc)).toEqual([CLAIM_FREE_RUNS_FUNCTION_BODY, FINISH_FREE_RUNS_FUNCTION_BODY]);
  });

  it("starts a free run of a 'skip' schedule; with another run active it leaves the decision to the locked claim", async () => {
    const s = await insertSchedule(h.pool, { handler: "demo.noop", overlapPolicy: "skip" });
    const first = await queued(s);
    const second = await queued(s);
    expect(await claimFreeRuns(h.pool, [req(first)])).toMatchObject([{ kind: "start", run: { runId: first, attempt: 1 } }]);
    expect(await claimFreeRuns(h.pool, [req(second)])).toEqual([undefined]);
    expect((await runState(h.pool, second)).state).toBe("queued");
    expect(await claimLocked(second)).toEqual({ kind: "skipped_overlap" });
  });

  it("of two runs of one 'skip' schedule in a batch starts only the older one", async () => {
    const s = await insertSchedule(h.pool, { handler: "demo.noop", overlapPolicy: "skip" });
    const older = await queued(s, -200);
    const newer = await queued(s);
    const results = await claimFreeRuns(h.pool, [req(newer), req(older)]);
    expect(results[0]).toBeUndefined();
    expect(results[1]).toMatchObject({ kind: "start", run: { runId: older } });
    expect(await claimLocked(newer)).toEqual({ kind: "skipped_overlap" });
  });

  it("fills a group up to its limit, oldest first, and leaves the rest and anyone younger than a waiter to the locked claim", async () => {
    const group = "free-claim-group";
    const s = await insertSchedule(h.pool, { handler: "demo.noop", overlapPolicy: "allow", concurrencyGroup: group });
    await h.pool.query(`UPDATE concurrency_groups SET max_running = 2 WHERE name = $1`, [group]);
    const ids = [await queued(s, -300), await queued(s, -200), await queued(s, -100)];
    const results = await claimFreeRuns(h.pool, [req(ids[2]!), req(ids[0]!), req(ids[1]!)]);
    expect(results.map((r) => r?.kind)).toEqual([undefined, "start", "start"]);
    expect(await claimLocked(ids[2]!)).toEqual({ kind: "waiting", reason: "concurrency" });
    // A slot frees (the finish wakes the waiter, because someone waits); a newer run must not jump the queue.
    const newer = await queued(s);
    await h.pool.query(`UPDATE runs SET state = 'succeeded', finished_at = now() WHERE id = $1`, [ids[0]]);
    expect(await claimFreeRuns(h.pool, [req(newer)])).toEqual([undefined]);
    expect(await claimLocked(newer)).toMatchObject({ kind: "waiting", reason: "concurrency" });
  });

  it("leaves every run of a group with a start-rate limit to the locked claim, which counts and records its starts", async () => {
    const group = "free-claim-rated";
    const s = await insertSchedule(h.pool, { handler: "demo.noop", overlapPolicy: "allow", concurrencyGroup: group });
    await h.pool.query(`UPDATE concurrency_groups SET max_running = 10, max_starts = 5, per_seconds = 1 WHERE name = $1`, [group]);
    const id = await queued(s, -100);
    expect(await claimFreeRuns(h.pool, [req(id)])).toEqual([undefined]);
    expect((await runState(h.pool, id)).state).toBe("queued");
    expect(await claimLocked(id)).toMatchObject({ kind: "start" });
    const { rows } = await h.pool.query(`SELECT cardinality(recent_starts) AS n FROM concurrency_groups WHERE name = $1`, [group]);
    expect(rows[0].n).toBe(1);
  });

  it("records a success nobody waits on; one whose schedule has a buffered run goes to finishRuns, which wakes it", async () => {
    const s = await insertSchedule(h.pool, { handler: "demo.noop", overlapPolicy: "buffer_one" });
    const a = await queued(s);
    expect((await claimFreeRuns(h.pool, [req(a)]))[0]?.kind).toBe("start");
    expect(await finishFreeRuns(h.pool, [success(a)])).toEqual([
      { state: "succeeded", recorded: true, settle: { jobId: jobIdFor(a, 1), how: "complete" } },
    ]);
    const b = await queued(s);
    const c = await queued(s);
    expect((await claimFreeRuns(h.pool, [req(b)]))[0]?.kind).toBe("start");
    expect(await claimLocked(c)).toEqual({ kind: "waiting", reason: "overlap" });
    expect(await finishFreeRuns(h.pool, [success(b)])).toEqual([undefined]);
    expect((await runState(h.pool, b)).state).toBe("running");
    expect((await runEvents(h.pool, a)).map((e) => e.type)).toEqual(["enqueued", "started", "finished"]);
  });

  it("never waits for a run another transaction holds, but waits for its schedule's lock and then decides on fresh rows", async () => {
    const s = await insertSchedule(h.pool, { handler: "demo.noop", overlapPolicy: "skip" });
    const active = await queued(s);
    const next = await queued(s);
    expect((await claimFreeRuns(h.pool, [req(active)]))[0]?.kind).toBe("start");
    const holder = await h.pool.connect();
    try {
      // Like a finish in progress: the schedule is locked, and the active run ends before the lock is released.
      await holder.query("BEGIN");
      await holder.query(`SELECT 1 FROM schedules WHERE id = $1 FOR NO KEY UPDATE`, [s]);
      const claiming = claimFreeRuns(h.pool, [req(next)]);
      await waitFor(
        "the claim to wait for the schedule's lock",
        async () =>
          (
            await h.pool.query(
              `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%vigil_claim_free_runs%'`,
            )
          ).rows[0].n === 1,
      );
      await holder.query(`UPDATE runs SET state = 'succeeded', finished_at = now() WHERE id = $1`, [active]);
      await holder.query(`UPDATE attempts SET state = 'succeeded', finished_at = now() WHERE run_id = $1`, [active]);
      await holder.query("COMMIT");
      // A statement whose snapshot predated the lock would still see the active run and refuse.
      expect((await claiming)[0]).toMatchObject({ kind: "start", run: { runId: next } });
    } finally {
      holder.release();
    }
  });
});
