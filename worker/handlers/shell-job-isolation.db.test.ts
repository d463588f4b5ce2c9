// An admin-approved shell.command job, run by a real worker, attacks what the worker holds: its environment and
// command line through /proc, its data folder and the checkout's .vigil folder, and the database without
// credentials. A recognisable value is planted in each; none may appear in the run's output or the worker's logs.
// The job runs as the separate job user (tests run as root), which is what keeps all of it out of reach.
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useTestDatabase, usePoolAndBoss } from "../../test/db";
import type { TestWorker } from "../../test/worker-process";
import { startWarmWorker } from "../../test/warm-worker";
import { waitFor } from "../../test/wait-for";
import { createRun, insertSchedule, runState } from "../../test/run-fixtures";

const db = useTestDatabase("shell_isolation");
const h = usePoolAndBoss(db);
const CANARY = `canary-${crypto.randomBytes(12).toString("hex")}`;
const JOB_USER = "vigil-job";

let worker: TestWorker;
let tmp: string;
let dataDir: string;
let checkoutVigil: string;
let createdCheckoutVigil = false;
let canaryInCheckout: string;

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "vigil-isolation-test-"));
  // The worker's data folder, as the embedded PostgreSQL and the local secret key leave it: owner-only.
  dataDir = path.join(tmp, "data");
  fs.mkdirSync(dataDir, { mode: 0o700 });
  fs.writeFileSync(path.join(dataDir, "secret-key"), `${CANARY}\n`, { mode: 0o600 });
  // The checkout's .vigil folder (npm start keeps its local key and credentials there, owner-only files).
  checkoutVigil = path.join(process.cwd(), ".vigil");
  if (!fs.existsSync(checkoutVigil)) {
    fs.mkdirSync(checkoutVigil, { mode: 0o700 });
    createdCheckoutVigil = true;
  }
  canaryInCheckout = path.join(checkoutVigil, `isolation-test-${process.pid}.key`);
  fs.writeFileSync(canaryInCheckout, `${CANARY}\n`, { mode: 0o600 });
  worker = await startWarmWorker(db.url, {
    VIGIL_HEARTBEAT_MS: "500",
    VIGIL_DRAIN_TIMEOUT_MS: "3000",
    VIGIL_DATA_DIR: dataDir,
    VIGIL_ADMIN_PASSWORD: CANARY,
    ISOLATION_CANARY: CANARY,
  });
}, 180_000);

afterAll(async () => {
  await worker?.stop();
  fs.rmSync(tmp, { recursive: true, force: true });
  fs.rmSync(canaryInCheckout, { force: true });
  if (createdCheckoutVigil) fs.rmSync(checkoutVigil, { recursive: true, force: true });
});

async function runScript(script: string, env: Record<string, string> = {}) {
  const schedule = await insertSchedule(h.pool, { handler: "shell.command", payload: { script, env } });
  const id = await createRun(h.pool, h.boss, schedule);
  const run = await waitFor(
    `run ${id} to end`,
    async () => {
      const r = await runState(h.pool, id);
      return ["succeeded", "failed", "timed_out", "cancelled", "hollow"].includes(r.state) ? r : null;
    },
    { timeoutMs: 30_000 },
  );
  const { rows } = await h.pool.query<{ message: string }>(`SELECT message FROM run_logs WHERE run_id = $1 ORDER BY id`, [id]);
  const output = rows.map((r) => r.message).join("\n");
  return { id, run, output };
}

const db_ = () => new URL(db.url);

// Each attack: a script, and what its output must show instead of the planted values.
const ATTACKS: { what: string; script: () => string; shows: RegExp }[] = [
  { what: "reads the worker's environment through /proc", script: () => `cat /proc/${worker.pid}/environ`, shows: /Permission denied/ },
  {
    what: "reads the environment of every thread of the worker",
    script: () => `for f in /proc/${worker.pid}/task/*/environ; do cat "$f"; done`,
    shows: /Permission denied/,
  },
  { what: "reads the worker's memory", script: () => `head -c 65536 /proc/${worker.pid}/mem | strings`, shows: /Permission denied/ },
  { what: "lists the worker's open files", script: () => `ls -l /proc/${worker.pid}/fd/`, shows: /Permission denied/ },
  {
    what: "reads the worker's command line and status (world-readable: they hold no secret)",
    script: () => `tr '\\0' ' ' < /proc/${worker.pid}/cmdline; echo; cat /proc/${worker.pid}/status`,
    shows: /worker\/main\.ts/,
  },
  { what: "lists and reads the worker's data folder", script: () => `ls -la "${dataDir}"; cat "${dataDir}"/*`, shows: /Permission denied/ },
  {
    what: "reads the checkout's .vigil files",
    script: () => `ls -la "${checkoutVigil}"; cat "${canaryInCheckout}"; cat "${checkoutVigil}"/*`,
    shows: /Permission denied/,
  },
  {
    what: "connects to the database without credentials (TCP and socket)",
    script: () =>
      `psql -w -X -h 127.0.0.1 -p ${db_().port} -U ${db_().username} -d ${db_().pathname.slice(1)} -c "select 'LEAKED-' || count(*) from users"; ` +
      `psql -w -X -h /tmp -p ${db_().port} -U ${db_().username} -d ${db_().pathname.slice(1)} -c "select 'LEAKED-' || count(*) from users"; true`,
    shows: /password|No such file|could not connect/,
  },
];

describe("a shell job cannot read what its worker holds", () => {
  it("runs as the separate job user, in a folder of its own, with no variable of the worker's", async () => {
    const { run, output } = await runScript(`id -un; pwd; echo "HOME=$HOME"; env`);
    expect(run.state).toBe("succeeded");
    expect(output).toMatch(new RegExp(`^${JOB_USER}$`, "m"));
    expect(output).toMatch(/^\/tmp\/vigil-run-[^/\n]+$/m);
    expect(output).not.toContain("ISOLATION_CANARY");
    expect(output).not.toContain("DATABASE_URL");
    expect(output).not.toContain(CANARY);
  });

  it.each(ATTACKS)("$what: nothing usable", async ({ script, shows }) => {
    const { output } = await runScript(script());
    expect(output).toMatch(shows);
    expect(output).not.toContain(CANARY);
    expect(output).not.toContain(db.url);
    expect(output).not.toMatch(/LEAKED-\d/);
    expect(worker.logs.join("\n")).not.toContain(CANARY);
  });

  it("output with NUL bytes (as /proc environ files have) is stored readably, not lost", async () => {
    const { run, output } = await runScript(`printf 'one\\000two\\n'; echo after`);
    expect(run.state).toBe("succeeded");
    expect(output).toContain("one\\0two");
    expect(output).toContain("after");
  });

  it("cannot make the worker read a file for it through the result file", async () => {
    const { run, output } = await runScript(`ln -s "${canaryInCheckout}" "$VIGIL_RESULT_FILE"`);
    expect(run.state).toBe("failed");
    expect(run.error).toMatch(/plain file the job wrote itself/);
    expect(`${output}\n${run.error}\n${JSON.stringify(run.result)}`).not.toContain(CANARY);
  });
});
