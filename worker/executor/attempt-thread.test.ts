// An executor thread gets what every task shares (the database URL, limits) once, at its start, and each task only
// what differs: consecutive tasks on one thread keep their own payload, run id, secrets and database handle.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { ThreadPool, type PooledThread, type ThreadEvent } from "./thread-pool";
import { DEFAULT_THREAD_LIMITS, type AttemptTask, type ThreadData } from "./thread-protocol";
import { waitFor } from "../../test/wait-for";

const quiet = pino({ level: "silent" });
const PROBES = new URL("./test-threads/probe-handlers.ts", import.meta.url).pathname;
/** Nothing listens there: a statement fails at connect, naming the address it was given. */
const UNREACHABLE_DB = "postgres://vigil:x@127.0.0.1:1/none";
let pool: ThreadPool | undefined;

afterEach(async () => {
  await pool?.stop();
  pool = undefined;
});

async function oneThread(data: Partial<ThreadData> = {}): Promise<PooledThread> {
  pool = new ThreadPool(
    1,
    quiet,
    () => {},
    () => {},
    undefined,
    {
      handlerSources: [PROBES],
      cwd: process.cwd(),
      ...DEFAULT_THREAD_LIMITS,
      ...data,
    },
  );
  await pool.start();
  const t = pool.take();
  if (!t) throw new Error("no idle thread");
  return t;
}

let seq = 0;
/** Runs one task on t and returns its outcome event. */
async function run(t: PooledThread, handler: string, payload: unknown, secrets?: AttemptTask["secrets"]): Promise<ThreadEvent> {
  const runId = `run-${++seq}`;
  let outcome: ThreadEvent | undefined;
  t.attach((e) => {
    if (e.type === "done" || e.type === "exit") outcome = e;
  });
  t.post({
    type: "run",
    task: { runId, scheduleId: "s", idempotencyKey: `k-${runId}`, attempt: 1, handler, payload, ...(secrets ? { secrets } : {}) },
  });
  const e = await waitFor(`${runId} to end`, () => outcome, { timeoutMs: 20_000 });
  t.detach();
  return e;
}

const summary = (e: ThreadEvent) =>
  e.type === "done" && e.ok ? (e.result as { summary?: string }).summary : `not ok: ${JSON.stringify(e)}`;

describe("attempt thread", () => {
  it("runs consecutive tasks with different payloads and run ids on one thread started with the shared data", async () => {
    const t = await oneThread({ databaseUrl: UNREACHABLE_DB });
    expect(summary(await run(t, "probe.echo", { text: "first" }))).toBe(`run-${seq}:first`);
    expect(summary(await run(t, "probe.echo", { text: "second" }))).toBe(`run-${seq}:second`);
    const bad = await run(t, "probe.echo", { text: 3 });
    expect(bad).toMatchObject({ type: "done", ok: false, permanent: true });
  });

  it("redacts a task's secrets, and only that task's", async () => {
    const t = await oneThread();
    const secret = "s3cret-value-for-this-task";
    expect(summary(await run(t, "probe.echo", { text: secret }, [{ name: "TOKEN", value: secret }]))).toBe(`run-${seq}:[secret TOKEN]`);
    // The next task has no secrets: nothing of the last one's redaction is left over.
    expect(summary(await run(t, "probe.echo", { text: "plain-value" }))).toBe(`run-${seq}:plain-value`);
  });

  it("gives ctx.db the database the thread was started with, and refuses it to work left behind after the run", async () => {
    const t = await oneThread({ databaseUrl: UNREACHABLE_DB });
    // Refused at connect by 127.0.0.1:1: the statement went to the thread's database.
    expect(summary(await run(t, "probe.db", {}))).toMatch(/ECONNREFUSED 127\.0\.0\.1:1/);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "vigil-attempt-thread-"));
    try {
      const file = path.join(dir, "after-run");
      expect(summary(await run(t, "probe.db", { afterRunFile: file }))).toBe("left work behind");
      const said = await waitFor("the left-behind work to report", () => (fs.existsSync(file) ? fs.readFileSync(file, "utf8") : undefined));
      expect(said).toBe("this attempt has ended; its database handle is closed");
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("says so when a handler reaches for the database of a thread started without one", async () => {
    const t = await oneThread();
    expect(await run(t, "probe.db", {})).toMatchObject({
      type: "done",
      ok: false,
      error: "this executor thread was started without a database",
    });
  });
});
