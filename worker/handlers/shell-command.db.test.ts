import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useTestDatabase, usePoolAndBoss } from "../../test/db";
import { startWorker, type TestWorker } from "../../test/worker-process";
import { waitFor } from "../../test/wait-for";
import { createTestToken } from "../../test/auth";
import { callRoute } from "../../test/call-route";
import { createRun, insertSchedule, runEvents, runState, waitForWorkerReady, type ScheduleFixture } from "../../test/run-fixtures";
import { isAlive, isGone, liveGroupMembers } from "../../test/process-liveness";
import { cancelRun } from "../../core/runs/operate/cancel-run";
import { systemActor } from "../../core/auth/roles";
import { GET as getRunRoute } from "../../app/api/runs/[id]/route";

const db = useTestDatabase("shell_command");
const h = usePoolAndBoss(db);
let worker: TestWorker;
let viewer: string;
let tmp: string;

// Planted in the worker's environment: none of them may reach a job unless passEnv names it.
const PLANTED = {
  VIGIL_ADMIN_PASSWORD: "planted-admin-pw-7781",
  VIGIL_ALERT_WEBHOOK_SECRET: "planted-webhook-secret-5519",
  PAYOUT_TOKEN: "payout-token-3141",
};

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "vigil-shell-test-"));
  // Jobs run as the unprivileged job user (worker/handlers/shell/job-identity.ts): they write their pid files here.
  fs.chmodSync(tmp, 0o1777);
  worker = startWorker(db.url, { VIGIL_WORKER_CONCURRENCY: "3", VIGIL_HEARTBEAT_MS: "500", VIGIL_DRAIN_TIMEOUT_MS: "3000", ...PLANTED });
  await waitForWorkerReady(worker);
  viewer = await createTestToken(db.url, "viewer");
}, 180_000);

afterAll(async () => {
  await worker?.stop();
  fs.rmSync(tmp, { recursive: true, force: true });
});

const ended = (id: string, timeoutMs = 20_000) =>
  waitFor(
    `run ${id} to end`,
    async () => {
      const r = await runState(h.pool, id);
      return ["succeeded", "failed", "hollow", "timed_out", "cancelled", "zombie"].includes(r.state) ? r : null;
    },
    { timeoutMs },
  );

async function runShell(payload: Record<string, unknown>, s: Partial<ScheduleFixture> = {}) {
  const schedule = await insertSchedule(h.pool, { handler: "shell.command", payload, ...s });
  const id = await createRun(h.pool, h.boss, schedule);
  return { id, run: await ended(id) };
}

async function logsOf(id: string): Promise<{ level: string; message: string }[]> {
  return (await h.pool.query(`SELECT level, message FROM run_logs WHERE run_id = $1 ORDER BY id`, [id])).rows;
}

/** The job writes "<shell pid> <grandchild pid>" here once both run. */
const pidsFile = (name: string) => path.join(tmp, `${name}.pids`);
const readPids = (file: string) => fs.readFileSync(file, "utf8").trim().split(/\s+/).map(Number);
// Ignores SIGTERM (and so does the sleeping grandchild, which inherits the ignored disposition).
const STUBBORN = `trap '' TERM; sleep 300 & echo $$ $! > "$PIDS_FILE"; wait; wait`;

/** Starts a run of `script` (which writes its pids file) and waits until both of its processes run. */
async function startGroupJob(tag: string, script: string, limits: { timeoutSeconds: number; graceSeconds: number }) {
  const file = pidsFile(tag);
  const schedule = await insertSchedule(h.pool, { handler: "shell.command", payload: { script, env: { PIDS_FILE: file } }, ...limits });
  const id = await createRun(h.pool, h.boss, schedule);
  const pids = await waitFor("the job to write its pids", () =>
    fs.existsSync(file) && readPids(file).length === 2 ? readPids(file) : null,
  );
  return { id, pids };
}

async function expectGroupDead(pids: number[]) {
  for (const pid of pids) expect(isAlive(pid), `pid ${pid} alive`).toBe(false);
  expect(liveGroupMembers(pids[0]!)).toEqual([]);
  // Dead now; and collected soon after (the shell by the worker, the orphaned grandchild by init).
  await waitFor(`pids ${pids.join(", ")} to be reaped`, () => pids.every(isGone), { timeoutMs: 15_000 });
}

describe("shell.command", () => {
  it("maps exit codes to outcomes and streams stdout (info) and stderr (warn) into the run's logs", async () => {
    const ok = await runShell({ command: ["/bin/sh", "-c", "echo hello from the job; echo careful >&2"] });
    expect(ok.run.state).toBe("succeeded");
    expect(ok.run.records).toBeNull();
    const trace = await callRoute(getRunRoute as never, { token: viewer, params: { id: ok.id } });
    const lines = trace.body.logs.map((l: { level: string; message: string }) => `${l.level} ${l.message}`);
    expect(lines).toContain("info hello from the job");
    expect(lines).toContain("warn careful");

    const three = await runShell({ script: "echo 'disk full' >&2; exit 3" });
    expect(three.run.state).toBe("failed");
    expect(three.run.error).toMatch(/exit code 3/);
    expect(three.run.error).toMatch(/last stderr: disk full/);

    const signalled = await runShell({ script: "kill -USR1 $$" });
    expect(signalled.run.state).toBe("failed");
    expect(signalled.run.error).toMatch(/killed by signal SIGUSR1/);

    const missing = await runShell({ command: ["/no/such/program"] });
    expect(missing.run.state).toBe("failed");
    expect(missing.run.error).toMatch(/could not start \/no\/such\/program/);

    const withStdin = await runShell({ command: ["/bin/cat"], stdin: "line one\nline two\n" });
    expect(withStdin.run.state).toBe("succeeded");
    expect((await logsOf(withStdin.id)).map((l) => l.message)).toEqual(expect.arrayContaining(["line one", "line two"]));
  });

  it("gives the job a fresh environment: run metadata, env and passEnv — never DATABASE_URL or Vigil's settings", async () => {
    const { id, run } = await runShell({ script: "env", env: { REGION: "eu-1" }, passEnv: ["PAYOUT_TOKEN"] });
    expect(run.state).toBe("succeeded");
    const lines = (await logsOf(id)).map((l) => l.message);
    const vars = Object.fromEntries(
      lines.filter((l) => /^[A-Za-z_][A-Za-z0-9_]*=/.test(l)).map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]),
    );
    expect(vars).toMatchObject({
      VIGIL_RUN_ID: id,
      VIGIL_ATTEMPT: "1",
      VIGIL_SCHEDULE_ID: run.schedule_id,
      VIGIL_IDEMPOTENCY_KEY: run.idempotency_key,
    });
    expect(vars.REGION).toBe("eu-1");
    expect(vars.PAYOUT_TOKEN).toBe(PLANTED.PAYOUT_TOKEN);
    expect(vars.VIGIL_RESULT_FILE).toMatch(/result\.json$/);
    expect(vars.PATH).toBeTruthy();
    expect(Object.keys(vars)).not.toContain("DATABASE_URL");
    expect(
      Object.keys(vars)
        .filter((k) => k.startsWith("VIGIL_"))
        .sort(),
    ).toEqual(["VIGIL_ATTEMPT", "VIGIL_IDEMPOTENCY_KEY", "VIGIL_RESULT_FILE", "VIGIL_RUN_ID", "VIGIL_SCHEDULE_ID"]);
    const all = lines.join("\n");
    for (const secret of [db.url, PLANTED.VIGIL_ADMIN_PASSWORD, PLANTED.VIGIL_ALERT_WEBHOOK_SECRET]) expect(all).not.toContain(secret);

    // Not named in passEnv: not passed.
    const plain = await runShell({ script: "env" });
    expect((await logsOf(plain.id)).map((l) => l.message).join("\n")).not.toContain(PLANTED.PAYOUT_TOKEN);
  });

  it("reports records through $VIGIL_RESULT_FILE, which drives hollow detection", async () => {
    const five = await runShell(
      { script: `echo '{"records": 5, "summary": "5 rows copied"}' > "$VIGIL_RESULT_FILE"` },
      { expectRecordsMin: 1 },
    );
    expect(five.run).toMatchObject({ state: "succeeded", records: 5 });
    expect(five.run.result).toMatchObject({ records: 5, summary: "5 rows copied" });
    const zero = await runShell({ script: `echo '{"records": 0}' > "$VIGIL_RESULT_FILE"` }, { expectRecordsMin: 1 });
    expect(zero.run.state).toBe("hollow");
    const garbage = await runShell({ script: `echo 'not json' > "$VIGIL_RESULT_FILE"` });
    expect(garbage.run.state).toBe("failed");
    expect(garbage.run.error).toMatch(/must hold JSON/);
    // The file is removed after the attempt.
    const where = await runShell({ script: `echo "$VIGIL_RESULT_FILE"; echo '{"records": 1}' > "$VIGIL_RESULT_FILE"` });
    const file = (await logsOf(where.id)).map((l) => l.message).find((m) => m.endsWith("result.json"))!;
    expect(fs.existsSync(path.dirname(file))).toBe(false);
  });

  it("caps huge output with a visible truncation marker", async () => {
    const { id, run } = await runShell({
      script: 'i=0; while [ $i -lt 20000 ]; do echo "line $i of a long output"; i=$((i+1)); done',
      maxOutputBytes: 4096,
    });
    expect(run.state).toBe("succeeded");
    const logs = await logsOf(id);
    const marker = logs.find((l) => l.message.startsWith("output truncated after"));
    expect(marker?.level).toBe("warn");
    expect(marker?.message).toMatch(/^output truncated after \d+ bytes/);
    expect(logs.length).toBeLessThan(400);
    expect(logs.at(-1)!.message).toMatch(/exit code 0 after \d+ ms; \d+ bytes of output \(\d+ stored\)/);
  });

  it("kills what the job left running in its group after it exits", async () => {
    const file = pidsFile("leftover");
    const { id, run } = await runShell({ script: `sleep 300 & echo $$ $! > "$PIDS_FILE"; exit 0`, env: { PIDS_FILE: file } });
    expect(run.state).toBe("succeeded");
    await expectGroupDead(readPids(file));
    const ev = (await runEvents(h.pool, id)).find((e) => e.type === "sigkill_sent");
    expect(ev?.message).toMatch(/SIGKILL sent to leftover processes of group \d+ after the command exited/);
  });

  it("on timeout SIGTERMs the whole process group, SIGKILLs it after the grace, and leaves nothing alive", async () => {
    const { id, pids } = await startGroupJob("timeout", STUBBORN, { timeoutSeconds: 2, graceSeconds: 1 });
    expect(liveGroupMembers(pids[0]!).sort()).toEqual([...pids].sort());
    const run = await ended(id);
    expect(run.state).toBe("timed_out");
    await expectGroupDead(pids);
    const events = await runEvents(h.pool, id);
    expect(events.map((e) => e.type)).toEqual([
      "enqueued",
      "started",
      "timed_out",
      "abort_sent",
      "sigterm_sent",
      "sigkill_sent",
      "terminated",
      "sessions_terminated",
      "finished",
    ]);
    const at = Object.fromEntries(events.map((e) => [e.type, e.at.getTime()]));
    expect(at.sigkill_sent! - at.sigterm_sent!).toBeGreaterThanOrEqual(900);
    expect(events.find((e) => e.type === "sigterm_sent")!.message).toBe(`SIGTERM sent to process group ${pids[0]}`);
    expect(events.find((e) => e.type === "sigkill_sent")!.message).toMatch(new RegExp(`^SIGKILL sent to process group ${pids[0]}`));
  });

  it("on cancel stops the whole process group the same way", async () => {
    const { id, pids } = await startGroupJob("cancel", STUBBORN, { timeoutSeconds: 60, graceSeconds: 1 });
    await cancelRun(id, systemActor("test"), "stop the shell job");
    const run = await ended(id);
    expect(run.state).toBe("cancelled");
    await expectGroupDead(pids);
    expect((await runEvents(h.pool, id)).map((e) => e.type)).toEqual([
      "enqueued",
      "started",
      "cancel_requested",
      "cancel_acknowledged",
      "abort_sent",
      "sigterm_sent",
      "sigkill_sent",
      "killed",
      "sessions_terminated",
      "cancelled",
    ]);
  });

  it("a job that stops on SIGTERM ends within the grace, without a SIGKILL", async () => {
    const { id, pids } = await startGroupJob("polite", `sleep 300 & echo $$ $! > "$PIDS_FILE"; wait`, {
      timeoutSeconds: 60,
      graceSeconds: 5,
    });
    await cancelRun(id, systemActor("test"), "stop politely");
    const run = await ended(id);
    expect(run.state).toBe("cancelled");
    expect(run.finished_at.getTime() - run.cancel_requested_at.getTime()).toBeLessThan(4000);
    await expectGroupDead(pids);
    const types = (await runEvents(h.pool, id)).map((e) => e.type);
    expect(types).toContain("sigterm_sent");
    expect(types).not.toContain("sigkill_sent");
  });

  it("members that take a moment to end after the group's SIGTERM are not SIGKILLed as leftovers", async () => {
    // The shell ends at once on SIGTERM; its child runs a 50 ms trap first, so it is still alive when the shell exits.
    const { id, pids } = await startGroupJob(
      "slow-polite",
      `bash -c 'trap "sleep 0.05; exit 0" TERM; sleep 300 & wait' & echo $$ $! > "$PIDS_FILE"; wait`,
      { timeoutSeconds: 60, graceSeconds: 5 },
    );
    await cancelRun(id, systemActor("test"), "stop politely");
    const run = await ended(id);
    expect(run.state).toBe("cancelled");
    await expectGroupDead(pids);
    const types = (await runEvents(h.pool, id)).map((e) => e.type);
    expect(types).toContain("sigterm_sent");
    expect(types).not.toContain("sigkill_sent");
  });

  // Last: it stops the file's worker.
  it("a worker that stops leaves no process of a job's group alive, even one inside a long grace", async () => {
    const { id, pids } = await startGroupJob("drain", STUBBORN, { timeoutSeconds: 1, graceSeconds: 120 });
    await waitFor("the SIGTERM at the timeout", async () => (await runEvents(h.pool, id)).some((e) => e.type === "sigterm_sent"), {
      timeoutMs: 10_000,
    });
    expect(liveGroupMembers(pids[0]!).sort()).toEqual([...pids].sort());
    expect(await worker.stop()).toBe(0);
    await expectGroupDead(pids);
  });
});
