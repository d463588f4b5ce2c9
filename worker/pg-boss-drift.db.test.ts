// Vigil takes a notified job by its key inside its own claim statement (claim-notified-job.ts) instead of through
// boss.fetch, takes and completes jobs inside its one-statement step (core/runs/step/run-step.ts), and settles jobs
// after the run's outcome (executor/job-settler.ts). Both must move a job exactly as the
// installed pg-boss does. This test takes one job with boss.fetch and one with Vigil's path and compares every column
// boss.fetch changed (the list is derived from pg-boss's own update, so a column a newer pg-boss starts setting fails
// here), then completes one with boss.complete and one with Vigil's settle path and compares again.
import { describe, expect, it } from "vitest";
import { usePoolAndBoss, useTestDatabase } from "../test/db";
import { enqueueRun, insertRun, insertSchedule } from "../test/run-fixtures";
import { jobIdFor } from "../core/queue/job-id";
import { ensureRunQueues, runQueueFor } from "../core/queue/boss";
import { claimNotifiedJob } from "./claim-notified-job";
import { JobSettler } from "./executor/job-settler";
import { runStep, type StepRequest } from "../core/runs/step/run-step";

const db = useTestDatabase("pgboss_drift");
const h = usePoolAndBoss(db);
const HANDLER = "demo.noop";
const quiet = { error: () => {}, warn: () => {}, info: () => {}, debug: () => {} } as never;

type JobRow = Record<string, unknown>;

async function jobRow(id: string): Promise<JobRow> {
  const { rows } = await h.pool.query(`SELECT * FROM pgboss.job WHERE id = $1`, [id]);
  expect(rows, `job ${id}`).toHaveLength(1);
  return rows[0];
}

async function dbNow(): Promise<Date> {
  return (await h.pool.query<{ t: Date }>(`SELECT clock_timestamp() AS t`)).rows[0]!.t;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** The columns whose value differs between two versions of a job row. */
function changedColumns(before: JobRow, after: JobRow): string[] {
  return Object.keys(after)
    .filter((k) => !same(before[k], after[k]))
    .sort();
}

/**
 * Asserts that `vigil` (one job before → after Vigil's step) changed exactly the columns `boss` (the other job before →
 * after pg-boss's step) changed, to the same values; a timestamp pg-boss set must be set by Vigil to a time inside
 * Vigil's step, and timestamps pg-boss set to one instant (job_now() within its statement) must be one instant too.
 */
function expectSameMove(
  step: string,
  boss: { before: JobRow; after: JobRow },
  vigil: { before: JobRow; after: JobRow; from: Date; to: Date },
): void {
  const bossCols = changedColumns(boss.before, boss.after);
  const vigilCols = changedColumns(vigil.before, vigil.after);
  expect(bossCols.length, `${step}: pg-boss changed no column at all`).toBeGreaterThan(0);
  for (const c of vigilCols) expect(bossCols, `${step}: Vigil changed column '${c}', which pg-boss does not`).toContain(c);
  for (const c of bossCols) {
    expect(vigilCols, `${step}: pg-boss changed column '${c}' (to ${JSON.stringify(boss.after[c])}), Vigil did not`).toContain(c);
    const b = boss.after[c];
    const v = vigil.after[c];
    if (b instanceof Date) {
      expect(v, `${step}: column '${c}' is a timestamp in pg-boss's move`).toBeInstanceOf(Date);
      const t = (v as Date).getTime();
      expect(
        t >= vigil.from.getTime() && t <= vigil.to.getTime(),
        `${step}: column '${c}' = ${(v as Date).toISOString()} outside Vigil's step`,
      ).toBe(true);
    } else {
      expect(v, `${step}: column '${c}' drifted`).toEqual(b);
    }
  }
  // Timestamps pg-boss sets to one statement instant (started_on = heartbeat_on = job_now()) stay one instant.
  const bossTimes = bossCols.filter((c) => boss.after[c] instanceof Date);
  for (const c of bossTimes) {
    for (const d of bossTimes) {
      if ((boss.after[c] as Date).getTime() === (boss.after[d] as Date).getTime()) {
        expect((vigil.after[c] as Date).getTime(), `${step}: '${c}' and '${d}' are one instant in pg-boss's move`).toBe(
          (vigil.after[d] as Date).getTime(),
        );
      }
    }
  }
}

describe("Vigil moves pg-boss jobs exactly as the installed pg-boss does", () => {
  it("run queues have the 'standard' policy, whose fetch Vigil's take-by-key reproduces", async () => {
    const s = await insertSchedule(h.pool, { handler: HANDLER });
    // Due in an hour: a job left due in the queue would be what the next test's boss.fetch takes first when that test
    // starts more than a second later (a loaded machine), instead of one of its own two.
    await enqueueRun(h.pool, h.boss, await insertRun(h.pool, s, { inMs: 3_600_000 }));
    const queue = await h.boss.getQueue(runQueueFor(HANDLER));
    expect(queue?.policy).toBe("standard");
  });

  it("a job taken by key (claimNotifiedJob) and then settled (JobSettler) equals one taken by boss.fetch and completed by boss.complete", async () => {
    const s = await insertSchedule(h.pool, { handler: HANDLER });
    const runs = [await insertRun(h.pool, s, { inMs: -1000 }), await insertRun(h.pool, s, { inMs: -1000 })];
    for (const r of runs) await enqueueRun(h.pool, h.boss, r);
    const ids = runs.map((r) => jobIdFor(r, 1));
    const queued = await Promise.all(ids.map(jobRow));
    for (const q of queued) expect(q.state).toBe("created");

    // pg-boss takes whichever of the two it orders first; Vigil takes the other one by key.
    const fetched = await h.boss.fetch(runQueueFor(HANDLER), { batchSize: 1 });
    expect(fetched).toHaveLength(1);
    const bossId = fetched[0]!.id;
    const vigilId = ids.find((i) => i !== bossId)!;
    expect(ids).toContain(bossId);
    const bossQueued = queued[ids.indexOf(bossId)]!;
    const vigilQueued = queued[ids.indexOf(vigilId)]!;
    const bossActive = await jobRow(bossId);

    const takeFrom = await dbNow();
    const taken = await claimNotifiedJob(h.pool, runQueueFor(HANDLER), vigilId, "drift-worker");
    const takeTo = await dbNow();
    expect(taken, "Vigil's take-by-key took the job").toMatchObject({ job: { id: vigilId } });
    const vigilActive = await jobRow(vigilId);
    expectSameMove(
      "fetch",
      { before: bossQueued, after: bossActive },
      { before: vigilQueued, after: vigilActive, from: takeFrom, to: takeTo },
    );

    // The outcome: boss.complete as a plain pg-boss worker calls it; Vigil's settle path for the other job.
    await h.boss.complete(runQueueFor(HANDLER), bossId);
    const bossCompleted = await jobRow(bossId);
    const settler = new JobSettler(h.boss, quiet);
    const settleFrom = await dbNow();
    settler.track({ id: vigilId, name: runQueueFor(HANDLER) });
    settler.settle({ jobId: vigilId, how: "complete" });
    await settler.stop();
    const settleTo = await dbNow();
    const vigilCompleted = await jobRow(vigilId);
    expect(vigilCompleted.state).toBe("completed");
    expectSameMove(
      "complete",
      { before: bossActive, after: bossCompleted },
      { before: vigilActive, after: vigilCompleted, from: settleFrom, to: settleTo },
    );
  });

  it("a job taken again after a failed attempt (pg-boss's retry) moves as boss.fetch moves it: retry_count counts the new take", async () => {
    // Vigil's own jobs never come back (retryLimit 0), but the take-by-key keeps pg-boss's rule for one that does.
    const queue = runQueueFor("demo.sleep");
    await ensureRunQueues(h.boss, ["demo.sleep"]);
    const ids = [] as string[];
    for (let i = 0; i < 2; i++) ids.push((await h.boss.send(queue, { n: i }, { retryLimit: 1, retryDelay: 0 }))!);
    expect(await h.boss.fetch(queue, { batchSize: 2 })).toHaveLength(2);
    await h.boss.fail(queue, ids);
    const waiting = await Promise.all(ids.map(jobRow));
    for (const w of waiting) expect(w).toMatchObject({ state: "retry", retry_count: 0 });

    const fetched = await h.boss.fetch(queue, { batchSize: 1 });
    expect(fetched).toHaveLength(1);
    const bossId = fetched[0]!.id;
    const vigilId = ids.find((i) => i !== bossId)!;
    const bossTaken = await jobRow(bossId);
    expect(bossTaken.retry_count, "pg-boss counts the second take").toBe(1);
    const from = await dbNow();
    const taken = await claimNotifiedJob(h.pool, queue, vigilId, "drift-worker");
    const to = await dbNow();
    expect(taken, "Vigil's take-by-key took the job").toMatchObject({ job: { id: vigilId } });
    expectSameMove(
      "fetch again",
      { before: waiting[ids.indexOf(bossId)]!, after: bossTaken },
      { before: waiting[ids.indexOf(vigilId)]!, after: await jobRow(vigilId), from, to },
    );
  });

  it("a job taken by a step (runStep) and completed by the next step equals one taken by boss.fetch and completed by boss.complete", async () => {
    // A handler of its own: the step takes the oldest due runs of its handler, and earlier tests leave some of HANDLER's.
    const handler = "drift.step";
    await ensureRunQueues(h.boss, [handler]);
    const s = await insertSchedule(h.pool, { handler, overlapPolicy: "allow" });
    const runs = [await insertRun(h.pool, s, { inMs: -1000 }), await insertRun(h.pool, s, { inMs: -1000 })];
    for (const r of runs) await enqueueRun(h.pool, h.boss, r);
    const ids = runs.map((r) => jobIdFor(r, 1));
    const queued = await Promise.all(ids.map(jobRow));

    const fetched = await h.boss.fetch(runQueueFor(handler), { batchSize: 1 });
    expect(fetched).toHaveLength(1);
    const bossId = fetched[0]!.id;
    const vigilId = ids.find((i) => i !== bossId)!;
    const vigilRun = runs[ids.indexOf(vigilId)]!;
    const bossActive = await jobRow(bossId);

    const step = (over: Partial<StepRequest>) =>
      runStep(h.pool, {
        queue: runQueueFor(handler),
        handler,
        take: 0,
        workerId: "drift-worker",
        finishes: [],
        queueOfJob: () => runQueueFor(handler),
        ...over,
      });
    const takeFrom = await dbNow();
    const taken = await step({ take: 2 });
    const takeTo = await dbNow();
    expect(
      taken.taken.map((t) => t.job.id),
      "the step took the job pg-boss left",
    ).toEqual([vigilId]);
    const vigilActive = await jobRow(vigilId);
    expectSameMove(
      "fetch",
      { before: queued[ids.indexOf(bossId)]!, after: bossActive },
      { before: queued[ids.indexOf(vigilId)]!, after: vigilActive, from: takeFrom, to: takeTo },
    );

    await h.boss.complete(runQueueFor(handler), bossId);
    const bossCompleted = await jobRow(bossId);
    const settleFrom = await dbNow();
    const done = await step({
      finishes: [
        {
          runId: vigilRun,
          attempt: 1,
          workerId: "drift-worker",
          jobId: vigilId,
          outcome: { kind: "succeeded", result: {} },
          durationMs: 1,
        },
      ],
    });
    const settleTo = await dbNow();
    expect(done.finished).toEqual([{ state: "succeeded", recorded: true, settle: null }]);
    expectSameMove(
      "complete",
      { before: bossActive, after: bossCompleted },
      { before: vigilActive, after: await jobRow(vigilId), from: settleFrom, to: settleTo },
    );
  });
});
