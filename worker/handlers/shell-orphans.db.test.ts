import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useTestDatabase, usePoolAndBoss } from "../../test/db";
import { startWorker, type TestWorker } from "../../test/worker-process";
import { waitFor } from "../../test/wait-for";
import { createRun, insertSchedule, runEvents, runState, waitForWorkerReady } from "../../test/run-fixtures";
import { isAlive, liveGroupMembers } from "../../test/process-liveness";

const db = useTestDatabase("shell_orphans");
const h = usePoolAndBoss(db);
const ENV = { VIGIL_WORKER_CONCURRENCY: "2", VIGIL_HEARTBEAT_MS: "500", VIGIL_ZOMBIE_AFTER_MS: "2000" };
const workers: TestWorker[] = [];
let tmp: string;
let pids: number[] = [];

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "vigil-orphans-test-"));
  // Jobs run as the unprivileged job user (worker/handlers/shell/job-identity.ts): they write their pid files here.
  fs.chmodSync(tmp, 0o1777);
});

afterAll(async () => {
  for (const w of workers) await w.stop();
  // Whatever the outcome, nothing of the job outlives the test.
  for (const pid of pids) if (isAlive(pid)) process.kill(pid, "SIGKILL");
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe("shell.command after its worker is killed with SIGKILL", () => {
  it("keeps running until a worker on the same host finds its attempt over, then its whole group is killed and the trace says so", async () => {
    const victim = startWorker(db.url, ENV);
    workers.push(victim);
    await waitForWorkerReady(victim);
    const file = path.join(tmp, "pids");
    const script = `trap '' TERM; sleep 300 & echo $$ $! > "$PIDS_FILE"; wait; wait`;
    const s = await insertSchedule(h.pool, {
      handler: "shell.command",
      payload: { script, env: { PIDS_FILE: file } },
      timeoutSeconds: 300,
      retryMaxAttempts: 1,
    });
    const id = await createRun(h.pool, h.boss, s);
    pids = await waitFor("the job to write its pids", () =>
      fs.existsSync(file) && fs.readFileSync(file, "utf8").trim().split(/\s+/).length === 2
        ? fs.readFileSync(file, "utf8").trim().split(/\s+/).map(Number)
        : null,
    );
    await victim.kill();
    // The worker is gone; its job is not (terminate() never ran, nobody holds the group).
    expect(liveGroupMembers(pids[0]!).sort()).toEqual([...pids].sort());

    const survivor = startWorker(db.url, ENV);
    workers.push(survivor);
    await waitForWorkerReady(survivor);
    await waitFor("the orphaned group to be killed", () => pids.every((p) => !isAlive(p)), { timeoutMs: 30_000 });
    expect(liveGroupMembers(pids[0]!)).toEqual([]);
    const run = await runState(h.pool, id);
    expect(run.state).toBe("zombie");
    const ev = (await runEvents(h.pool, id)).find((e) => e.type === "sigkill_sent");
    expect(ev?.message).toMatch(new RegExp(`^SIGKILL sent to orphaned process group ${pids[0]} on .*: attempt 1 is over \\(run zombie\\)`));
  });
});
