import crypto from "node:crypto";
import { describe, expect, it } from "vitest";
import { usePoolAndBoss, useTestDatabase } from "../../../test/db";
import { enqueueRun, insertRun, insertSchedule, runEvents, runState } from "../../../test/run-fixtures";
import { jobIdFor } from "../../queue/job-id";
import { runQueueFor } from "../../queue/boss";
import { OPERATOR_PRIORITY } from "../../queue/send-run-job";
import type { FinishRequest } from "../finish/finish-run";
import { RUN_STEP_FUNCTION_BODY, runStep, type StepRequest } from "./run-step";

const db = useTestDatabase("run_step");
const h = usePoolAndBoss(db);
const HANDLER = "demo.noop";
const QUEUE = runQueueFor(HANDLER);

async function queued(scheduleId: string, inMs = -50): Promise<string> {
  const id = await insertRun(h.pool, scheduleId, { inMs });
  await enqueueRun(h.pool, h.boss, id);
  return id;
}

const jobState = async (id: string) => (await h.pool.query(`SELECT state FROM pgboss.job WHERE id = $1`, [id])).rows[0]?.state;

const step = (over: Partial<StepRequest>) =>
  runStep(h.pool, { queue: QUEUE, handler: HANDLER, take: 0, workerId: "w-step", finishes: [], queueOfJob: () => QUEUE, ...over });

const success = (runId: string): FinishRequest => ({
  runId,
  attempt: 1,
  workerId: "w-step",
  jobId: jobIdFor(runId, 1),
  outcome: { kind: "succeeded", result: {} },
  durationMs: 3,
});

describe("one statement per batch (vigil_run_step)", () => {
  it("runs the function the migration installed", async () => {
    const { rows } = await h.pool.query(`SELECT prosrc FROM pg_proc WHERE proname = 'vigil_run_step'`);
    expect(rows.map((r) => r.prosrc)).toEqual([RUN_STEP_FUNCTION_BODY]);
  });

  it("names a run's job in SQL exactly as jobIdFor does", async () => {
    const cases = Array.from({ length: 20 }, (_, i) => ({ run: crypto.randomUUID(), attempt: 1 + (i % 4), wake: i % 3 }));
    const { rows } = await h.pool.query<{ id: string }>(
      `SELECT vigil_job_id(c.run, c.attempt, c.wake)::text AS id
         FROM unnest($1::uuid[], $2::int[], $3::int[]) WITH ORDINALITY AS c(run, attempt, wake, o) ORDER BY c.o`,
      [cases.map((c) => c.run), cases.map((c) => c.attempt), cases.map((c) => c.wake)],
    );
    expect(rows.map((r) => r.id)).toEqual(cases.map((c) => jobIdFor(c.run, c.attempt, c.wake)));
  });

  it("takes due jobs by key, claims their runs, and leaves jobs not yet due", async () => {
    const s = await insertSchedule(h.pool, { handler: HANDLER, overlapPolicy: "allow" });
    const due = [await queued(s), await queued(s), await queued(s)];
    const later = await queued(s, 60_000);
    const r = await step({ take: 5 });
    expect(r.taken.map((t) => t.job.id).sort()).toEqual(due.map((id) => jobIdFor(id, 1)).sort());
    for (const t of r.taken) expect(t.claimed).toMatchObject({ kind: "start", run: { attempt: 1 } });
    for (const id of due) {
      expect((await runState(h.pool, id)).state).toBe("running");
      expect(await jobState(jobIdFor(id, 1))).toBe("active");
    }
    expect((await runState(h.pool, later)).state).toBe("queued");
    expect(await jobState(jobIdFor(later, 1))).toBe("created");
  });

  it("records the outcomes that freed the slots, completes their jobs, and claims the next runs in the same call", async () => {
    const s = await insertSchedule(h.pool, { handler: HANDLER, overlapPolicy: "skip" });
    const first = await queued(s, -100);
    const second = await queued(s, -50);
    // The oldest run of a 'skip' schedule starts; the next one waits for it.
    const a = await step({ take: 1 });
    expect(a.taken.map((t) => t.job.id)).toEqual([jobIdFor(first, 1)]);
    expect(a.taken[0]!.claimed).toMatchObject({ kind: "start" });
    // Its success and the next take in one call: the outcome is recorded first, so the next run is free to start.
    const b = await step({ take: 1, finishes: [success(first)] });
    expect(b.finished).toEqual([{ state: "succeeded", recorded: true, settle: null }]);
    expect((await runState(h.pool, first)).state).toBe("succeeded");
    expect(await jobState(jobIdFor(first, 1))).toBe("completed");
    expect(b.taken.map((t) => t.job.id)).toEqual([jobIdFor(second, 1)]);
    expect(b.taken[0]!.claimed).toMatchObject({ kind: "start", run: { runId: second } });
    expect((await runEvents(h.pool, first)).map((e) => e.type)).toContain("finished");
  });

  it("leaves what it may not decide: a failure outcome, a run another holds, a taken job whose run waits", async () => {
    const s = await insertSchedule(h.pool, { handler: HANDLER, overlapPolicy: "skip" });
    const running = await queued(s, -100);
    await step({ take: 1 });
    const waiting = await queued(s, -50);
    const failed: FinishRequest = { ...success(running), outcome: { kind: "failed", error: "boom" } };
    const r = await step({ take: 1, finishes: [failed] });
    expect(r.finished).toEqual([undefined]);
    expect((await runState(h.pool, running)).state).toBe("running");
    // The taken job's run cannot start beside the running one: taken, but left to the claim under full locks.
    expect(r.taken.map((t) => t.job.id)).toEqual([jobIdFor(waiting, 1)]);
    expect(r.taken[0]!.claimed).toBeUndefined();
    expect((await runState(h.pool, waiting)).state).toBe("queued");
  });

  it("takes a job an operator asked for ahead of the backlog, as pg-boss orders it", async () => {
    const s = await insertSchedule(h.pool, { handler: HANDLER, overlapPolicy: "allow" });
    for (let i = 0; i < 6; i++) await queued(s, -5000 + i);
    const manual = await insertRun(h.pool, s, { inMs: 0, kind: "manual" });
    await enqueueRun(h.pool, h.boss, manual);
    await h.pool.query(`UPDATE pgboss.job SET priority = $2 WHERE id = $1`, [jobIdFor(manual, 1), OPERATOR_PRIORITY]);
    const r = await step({ take: 1 });
    expect(r.taken.map((t) => t.job.id)).toEqual([jobIdFor(manual, 1)]);
  });
});
