import { describe, expect, it } from "vitest";
import { usePoolAndBoss, useTestDatabase } from "../../../test/db";
import { enqueueRun, insertRun, insertSchedule, runEvents, runState } from "../../../test/run-fixtures";
import { withTransaction } from "../../db/pool";
import { jobIdFor } from "../../queue/job-id";
import { claimRun, claimRuns, type ClaimResult } from "./claim-run";
import { sweepSchedule } from "../plan/mark-missed-runs";

const db = useTestDatabase("start_rate");
const h = usePoolAndBoss(db);

const claim = (runId: string, wake = 0): Promise<ClaimResult> =>
  withTransaction((tx) => claimRun(tx, h.boss, { runId, attempt: 1, jobId: jobIdFor(runId, 1, wake), workerId: "w-test" }), h.pool);

/** A schedule in a group with a high concurrency limit and the given start-rate limit, and n queued runs of it (oldest first). */
async function groupWithRuns(group: string, maxStarts: number, perSeconds: number, n: number, startingDeadlineSeconds = 600) {
  const s = await insertSchedule(h.pool, { handler: "demo.noop", concurrencyGroup: group, startingDeadlineSeconds });
  await h.pool.query(`UPDATE concurrency_groups SET max_running = 100, max_starts = $2, per_seconds = $3 WHERE name = $1`, [
    group,
    maxStarts,
    perSeconds,
  ]);
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const id = await insertRun(h.pool, s, { inMs: -1000 + i });
    await enqueueRun(h.pool, h.boss, id);
    ids.push(id);
  }
  return { scheduleId: s, ids };
}

const job = async (runId: string, wake: number) =>
  (await h.pool.query(`SELECT state, start_after FROM pgboss.job WHERE id = $1`, [jobIdFor(runId, 1, wake)])).rows[0];
const attemptStart = async (runId: string): Promise<Date> =>
  (await h.pool.query(`SELECT started_at FROM attempts WHERE run_id = $1 AND number = 1`, [runId])).rows[0].started_at;

describe("start-rate limit of a concurrency group", () => {
  it("holds a run over the limit as waiting ('waiting: rate limit of <group>') with a job due when the window frees", async () => {
    const { ids } = await groupWithRuns("bank-api", 2, 60, 4);
    const [a, b, c, d] = ids as [string, string, string, string];
    expect((await claim(a)).kind).toBe("start");
    expect((await claim(b)).kind).toBe("start");
    expect(await claim(c)).toEqual({ kind: "waiting", reason: "rate_limit" });

    // Not failed, not skipped: still queued, waiting, and the trace says why.
    expect(await runState(h.pool, c)).toMatchObject({ state: "queued", wait_reason: "rate_limit", wakes: 1, attempt: 0 });
    const waiting = (await runEvents(h.pool, c)).filter((e) => e.type === "waiting");
    expect(waiting).toHaveLength(1);
    expect(waiting[0]!.message).toBe("waiting: rate limit of bank-api");
    expect(waiting[0]!.data).toMatchObject({ group: "bank-api", maxStarts: 2, perSeconds: 60, waitingAhead: 0 });

    // The group row remembers the recorded starts, and c's next job is due when a's start leaves the window.
    const startA = await attemptStart(a);
    const startB = await attemptStart(b);
    const { rows: g } = await h.pool.query(`SELECT recent_starts FROM concurrency_groups WHERE name = 'bank-api'`);
    expect(g[0].recent_starts.map((x: Date) => x.getTime())).toEqual([startA.getTime(), startB.getTime()]);
    const cJob = await job(c, 1);
    expect(cJob.state).toBe("created");
    expect(cJob.start_after.getTime()).toBe(startA.getTime() + 60_000 + 1);

    // First come, first served: d queues behind c and gets the slot after it (when b's start leaves the window).
    expect(await claim(d)).toEqual({ kind: "waiting", reason: "rate_limit" });
    expect((await runEvents(h.pool, d)).find((e) => e.type === "waiting")!.data).toMatchObject({ waitingAhead: 1 });
    expect((await job(d, 1)).start_after.getTime()).toBe(startB.getTime() + 60_000 + 1);

    // An early delivery of c's job while the window is still full waits again (a fresh job, same slot).
    expect(await claim(c, 1)).toEqual({ kind: "waiting", reason: "rate_limit" });
    expect((await job(c, 2)).start_after.getTime()).toBe(startA.getTime() + 60_000 + 1);

    // Once the window has slid past a's start (moved back here instead of waiting a minute), c starts.
    await h.pool.query(
      `UPDATE concurrency_groups SET recent_starts = ARRAY[clock_timestamp() - interval '61 s', $2::timestamptz] WHERE name = $1`,
      ["bank-api", startB],
    );
    expect((await claim(c, 2)).kind).toBe("start");
    expect(await runState(h.pool, c)).toMatchObject({ state: "running", wait_reason: null });
    // ...and d, still behind a full window (b and c started within it), keeps waiting.
    expect(await claim(d, 1)).toEqual({ kind: "waiting", reason: "rate_limit" });
  });

  it("starts at most maxStarts of one batch, the oldest first", async () => {
    const { ids } = await groupWithRuns("batch-rate", 3, 60, 5);
    const reqs = [...ids].reverse().map((runId) => ({ runId, attempt: 1, jobId: jobIdFor(runId, 1, 0), workerId: "w-test" }));
    const results = await withTransaction((tx) => claimRuns(tx, h.boss, reqs), h.pool);
    const kinds = new Map([...ids].reverse().map((id, i) => [id, results[i]!.kind]));
    expect(ids.map((id) => kinds.get(id))).toEqual(["start", "start", "start", "waiting", "waiting"]);
  });

  it("a run waiting for the rate limit past its starting deadline is marked missed, like any queued run", async () => {
    // A 60 s deadline, so a busy machine cannot make a miss its own before it is claimed; b's passes by moving it back.
    const { scheduleId, ids } = await groupWithRuns("deadline-rate", 1, 3600, 2, 60);
    const [a, b] = ids as [string, string];
    await h.pool.query(`UPDATE runs SET due_at = clock_timestamp() WHERE id = ANY($1::uuid[])`, [ids]);
    expect((await claim(a)).kind).toBe("start");
    expect(await claim(b)).toEqual({ kind: "waiting", reason: "rate_limit" });
    await h.pool.query(`UPDATE runs SET due_at = clock_timestamp() - interval '65 s' WHERE id = $1`, [b]);
    await withTransaction((tx) => sweepSchedule(tx, scheduleId, h.boss), h.pool);
    expect(await runState(h.pool, b)).toMatchObject({ state: "missed" });
    // Its pending wake finds nothing to start.
    expect((await claim(b, 1)).kind).toBe("suppressed");
  });
});
