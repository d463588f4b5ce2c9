// Limits that hold against one handler, with a real worker process: a handler allocating 2 GB of buffers (memory the
// JavaScript heap limit never sees) is ended with the memory reason while the worker and its other runs go on and
// the memory is given back; a handler printing 100 MB keeps a bounded log with one line saying what was dropped;
// whatever a handler throws is recorded readably.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useTestDatabase, usePoolAndBoss } from "../../test/db";
import { createRun, insertSchedule } from "../../test/run-fixtures";
import { residentBytes } from "../../test/console-process";
import { waitFor } from "../../test/wait-for";
import { startWarmWorker } from "../../test/warm-worker";
import type { TestWorker } from "../../test/worker-process";

const db = useTestDatabase("handler_limits");
const h = usePoolAndBoss(db);
const MB = 1024 * 1024;
const MEMORY_LIMIT_MB = 256;
const OUTPUT_LIMIT_KB = 64;
let jobs: string;
let worker: TestWorker;

const HANDLERS = `
import { defineHandler, z } from "vigil/sdk";

// 2 GB of buffers in 16 MB chunks, each written so its pages are really used, in a loop that never yields.
export const hog = defineHandler({
  name: "limits.hog",
  description: "limits test: hog",
  payload: z.object({}),
  async run() {
    const kept = [];
    for (let i = 0; i < 128; i++) kept.push(Buffer.alloc(16 * 1024 * 1024, i + 1));
    return { records: kept.length };
  },
});

export const steady = defineHandler({
  name: "limits.steady",
  description: "limits test: steady",
  payload: z.object({ ms: z.number() }),
  async run(payload) {
    await new Promise((r) => setTimeout(r, payload.ms));
    return { records: 1 };
  },
});

// Returns at once, leaving a timer behind that keeps allocating in the (now idle) thread.
export const leaky = defineHandler({
  name: "limits.leaky",
  description: "limits test: leaky",
  payload: z.object({}),
  async run() {
    const kept = [];
    const timer = setInterval(() => {
      kept.push(Buffer.alloc(16 * 1024 * 1024, 1));
      if (kept.length >= 128) clearInterval(timer);
    }, 10);
    return { records: 1 };
  },
});

// 100 MB of output: console.log, process.stdout and ctx.log.
export const chatty = defineHandler({
  name: "limits.chatty",
  description: "limits test: chatty",
  payload: z.object({}),
  async run(_payload, ctx) {
    const line = "y".repeat(1024);
    for (let i = 0; i < 60 * 1024; i++) console.log(line);
    for (let i = 0; i < 30; i++) process.stdout.write("z".repeat(1024 * 1024) + "\\n");
    for (let i = 0; i < 10 * 1024; i++) ctx.log("info", line);
    return { records: 1 };
  },
});

const circular = { code: "E_LEDGER", detail: { account: 42 } };
circular.self = circular;
const values = {
  object: circular,
  string: "the ledger is closed",
  undefined: undefined,
  null: null,
  number: 7,
  symbol: Symbol("nope"),
  array: [1, "two"],
  badToString: { toString() { throw new Error("no"); }, toJSON() { throw new Error("no"); } },
  cause: new Error("could not post", { cause: new TypeError("amount is not a number", { cause: { field: "amount" } }) }),
};
export const thrower = defineHandler({
  name: "limits.thrower",
  description: "limits test: thrower",
  payload: z.object({ kind: z.string() }),
  async run(payload) {
    throw values[payload.kind];
  },
});
`;

async function finished(runId: string, timeoutMs = 120_000): Promise<{ state: string; error: string | null }> {
  return waitFor(
    `run ${runId} to finish`,
    async () => (await h.pool.query(`SELECT state, error FROM runs WHERE id = $1 AND finished_at IS NOT NULL`, [runId])).rows[0],
    { timeoutMs, intervalMs: 100 },
  );
}

async function runOnce(handler: string, payload: unknown = {}): Promise<string> {
  const scheduleId = await insertSchedule(h.pool, { handler, payload, timeoutSeconds: 120, retryMaxAttempts: 1 });
  return createRun(h.pool, h.boss, scheduleId);
}

beforeAll(async () => {
  jobs = fs.mkdtempSync(path.join(os.tmpdir(), "limits-jobs-"));
  fs.writeFileSync(path.join(jobs, "limits.ts"), HANDLERS);
  worker = await startWarmWorker(
    db.url,
    {
      VIGIL_HANDLER_MEMORY_MB: String(MEMORY_LIMIT_MB),
      VIGIL_HANDLER_OUTPUT_KB: String(OUTPUT_LIMIT_KB),
      VIGIL_WORKER_CONCURRENCY: "2",
    },
    180_000,
    ["--handlers", jobs],
  );
}, 200_000);

afterAll(async () => {
  await worker?.kill();
  fs.rmSync(jobs, { recursive: true, force: true });
});

describe("a handler thread's total memory is bounded", () => {
  it("a handler allocating 2 GB of buffers fails with the memory reason, another run on the worker succeeds, and the memory is given back", async () => {
    const baseline = residentBytes(worker.pid);
    let hogError: string | null = null;
    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, residentBytes(worker.pid))), 20);
    try {
      const steady = await runOnce("limits.steady", { ms: 1500 });
      const hog = await runOnce("limits.hog");
      const hogRun = await finished(hog);
      hogError = hogRun.error;
      expect(hogRun.state).toBe("failed");
      expect(hogRun.error).toMatch(new RegExp(`^memory limit exceeded: \\d+ MB of ${MEMORY_LIMIT_MB} MB$`));
      expect(await finished(steady)).toMatchObject({ state: "succeeded" });
      // The worker lives on and runs the next one.
      expect(await finished(await runOnce("limits.steady", { ms: 10 }))).toMatchObject({ state: "succeeded" });
    } finally {
      clearInterval(sampler);
    }
    expect(worker.child.exitCode).toBeNull();
    process.stdout.write(`worker RSS: baseline ${Math.round(baseline / MB)} MB, peak ${Math.round(peak / MB)} MB, error "${hogError}"\n`);
    // Never near the 2 GB the handler asked for: the bound, plus what one check interval lets through.
    expect(peak - baseline).toBeLessThan((MEMORY_LIMIT_MB + 192) * MB);
    // And the memory goes back: the terminated thread's buffers are freed.
    await waitFor("the worker's memory to come back", () => residentBytes(worker.pid) - baseline < 64 * MB, {
      timeoutMs: 30_000,
      intervalMs: 200,
    });
  }, 240_000);
});

describe("an idle thread is held to the bound too", () => {
  it("a timer a handler left behind, allocating after the run returned, gets its thread replaced", async () => {
    const baseline = residentBytes(worker.pid);
    expect(await finished(await runOnce("limits.leaky"))).toMatchObject({ state: "succeeded" });
    await waitFor(
      "the idle thread to be replaced",
      () => worker.logs.some((l) => l.includes("idle executor thread over its memory bound")),
      {
        timeoutMs: 60_000,
        intervalMs: 100,
      },
    );
    // The replaced thread's buffers are given back: kept, the leak would hold 2 GB (128 × 16 MB). What stays is the
    // allocator's and the main isolate's own slack, which after the 2 GB test before it ranged from 30 MB (a quiet
    // machine) to over 128 MB (full suite runs on a loaded one): the bound is that the leak is gone — under the
    // thread's own memory limit — not that the process returns to the byte.
    // A failure says how much the replaced thread held and how much the process still holds: once seen in a full
    // suite run, not reproduced (alone or beside another worker test the process is back within 2 s to 15–40 MB above
    // its baseline, whatever the thread held).
    const replaced = worker.logs.find((l) => l.includes("idle executor thread over its memory bound"));
    const heldMb = /"usedMb":(\d+)/.exec(replaced ?? "")?.[1] ?? "?";
    let aboveMb = 0;
    await waitFor(
      "the worker's memory to come back",
      () => (aboveMb = Math.round((residentBytes(worker.pid) - baseline) / MB)) < MEMORY_LIMIT_MB,
      { timeoutMs: 60_000, intervalMs: 200 },
    ).catch((err: Error) => {
      throw new Error(
        `${err.message}: the thread was replaced holding ${heldMb} MB; the worker still holds ${aboveMb} MB above its baseline`,
      );
    });
    expect(await finished(await runOnce("limits.steady", { ms: 10 }))).toMatchObject({ state: "succeeded" });
  }, 180_000);
});

describe("a handler's output is bounded", () => {
  it("a handler printing 100 MB keeps a bounded log with one line saying what was dropped; the worker survives", async () => {
    const before = residentBytes(worker.pid);
    const run = await runOnce("limits.chatty");
    expect(await finished(run)).toMatchObject({ state: "succeeded" });
    const { rows } = await h.pool.query(`SELECT level, message FROM run_logs WHERE run_id = $1 ORDER BY id`, [run]);
    const kept = rows.filter((r) => !r.message.startsWith("output limit reached"));
    const markers = rows.filter((r) => r.message.startsWith("output limit reached"));
    expect(markers).toHaveLength(1);
    expect(markers[0].message).toMatch(/dropped/);
    expect(markers[0].message).toMatch(/1\d\d\.\d MB in \d+ writes dropped|9\d\.\d MB in \d+ writes dropped/);
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.reduce((n, r) => n + r.message.length, 0)).toBeLessThanOrEqual(OUTPUT_LIMIT_KB * 1024);
    expect(kept[0].message).toMatch(/^y+$/);
    expect(worker.child.exitCode).toBeNull();
    expect(residentBytes(worker.pid) - before).toBeLessThan(100 * MB);
    expect(await finished(await runOnce("limits.steady", { ms: 10 }))).toMatchObject({ state: "succeeded" });
  }, 240_000);
});

describe("whatever a handler throws is recorded readably", () => {
  const cases: [kind: string, error: RegExp][] = [
    ["object", /^an object was thrown: \{"code":"E_LEDGER","detail":\{"account":42\},"self":"\[circular\]"\}$/],
    ["string", /^the ledger is closed$/],
    ["undefined", /^undefined was thrown/],
    ["null", /^null was thrown/],
    ["number", /^a number was thrown: 7$/],
    ["symbol", /^a symbol was thrown: Symbol\(nope\)$/],
    ["array", /^an array was thrown: \[1,"two"\]$/],
    ["badToString", /^an object was thrown: Object/],
    [
      "cause",
      /^could not post \(caused by: TypeError: amount is not a number \(caused by: an object was thrown: \{"field":"amount"\}\)\)$/,
    ],
  ];
  it.each(cases)(
    "a thrown %s",
    async (kind, error) => {
      const run = await finished(await runOnce("limits.thrower", { kind }));
      expect(run.state).toBe("failed");
      expect(run.error).toMatch(error);
      expect(run.error).not.toContain("[object Object]");
    },
    120_000,
  );
});
