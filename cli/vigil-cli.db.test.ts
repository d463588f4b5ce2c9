// The real `vigil` executable (cli/bin/vigil.js) as a child process against a real console process: what an
// operator's shell or script sees (output, exit codes), not the functions behind it.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useTestDatabase, testPool } from "../test/db";
import { createTestToken } from "../test/auth";
import { startConsole, type TestConsole } from "../test/console-process";
import { insertSchedule } from "../test/run-fixtures";
import { waitFor } from "../test/wait-for";
import { freePort } from "../scripts/lib/free-port";
import { insertRunLogs } from "../core/runs/insert-run-logs";
import { EXIT } from "./exit-codes";

const db = useTestDatabase("vigil_cli");
const root = path.resolve(import.meta.dirname, "..");
const CLI_MS = 120_000;

interface Vigil {
  code: Promise<number>;
  stdout: () => string;
  stderr: () => string;
}

let consoleProcess: TestConsole;
let token = "";
let scheduleName = "";
let home = "";
let pool: ReturnType<typeof testPool>;

/** Starts `vigil …` (the package's bin) with only the given environment. */
function start(args: string[], env: Record<string, string | undefined> = {}): Vigil {
  const child = spawn(process.execPath, [path.join(root, "cli/bin/vigil.js"), ...args], {
    cwd: os.tmpdir(),
    env: Object.fromEntries(
      Object.entries({ PATH: process.env.PATH ?? "", HOME: home, VIGIL_URL: consoleProcess.baseUrl, VIGIL_TOKEN: token, ...env }).filter(
        ([, v]) => v !== undefined,
      ),
    ) as unknown as NodeJS.ProcessEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr.on("data", (d: Buffer) => (err += d.toString()));
  const timer = setTimeout(() => child.kill("SIGKILL"), CLI_MS);
  return {
    code: new Promise((resolve) => child.on("exit", (code) => (clearTimeout(timer), resolve(code ?? -1)))),
    stdout: () => out,
    stderr: () => err,
  };
}

async function vigil(args: string[], env: Record<string, string | undefined> = {}) {
  const p = start(args, env);
  const code = await p.code;
  return { code, stdout: p.stdout(), stderr: p.stderr() };
}

async function runState(id: string): Promise<string> {
  const { rows } = await pool.query(`SELECT state FROM runs WHERE id = $1`, [id]);
  return rows[0]?.state as string;
}

describe("the vigil CLI against a running console", () => {
  beforeAll(async () => {
    pool = testPool(db.url);
    home = fs.mkdtempSync(path.join(os.tmpdir(), "vigil-cli-home-"));
    token = await createTestToken(db.url, "operator");
    const id = await insertSchedule(pool, { handler: "demo.noop" });
    scheduleName = (await pool.query(`SELECT name FROM schedules WHERE id = $1`, [id])).rows[0].name;
    // A development console (no build): slow to start on a busy machine.
    consoleProcess = await startConsole(db.url, {}, { startTimeoutMs: 300_000 });
    // The development console compiles each route on its first request: do that before the CLI's timeouts count.
    for (const p of [
      "/api/schedules",
      `/api/schedules/${id}`,
      "/api/runs",
      `/api/runs/${crypto.randomUUID()}`,
      "/api/alerts",
      "/api/audit/verify",
    ]) {
      await fetch(`${consoleProcess.baseUrl}${p}`, { headers: { authorization: `Bearer ${token}` } });
    }
  }, 600_000);

  afterAll(async () => {
    await consoleProcess?.stop();
    await pool?.end();
    if (home) fs.rmSync(home, { recursive: true, force: true });
  });

  it(
    "triggers a schedule by name, lists and cancels the run: human output by default, JSON that parses with --json",
    async () => {
      const trig = await vigil(["schedules", "trigger", scheduleName, "--reason", "cli test", "--json"]);
      expect(trig.stderr).toBe("");
      expect(trig.code).toBe(EXIT.ok);
      const answer = JSON.parse(trig.stdout) as { runId: string; dryRun: boolean; replayed: boolean };
      expect(answer).toMatchObject({ dryRun: false, replayed: false });
      expect(await runState(answer.runId)).toMatch(/^(planned|queued)$/);

      const list = await vigil(["runs", "list", "--schedule", scheduleName]);
      expect(list.code).toBe(EXIT.ok);
      expect(list.stdout.split("\n")[0]).toMatch(/^ID\s+SCHEDULE\s+KIND\s+STATE/);
      expect(list.stdout).toContain(answer.runId);

      const listJson = await vigil(["--json", "runs", "list", "--state", "queued,planned"]);
      expect((JSON.parse(listJson.stdout) as { runs: { id: string }[] }).runs.map((r) => r.id)).toContain(answer.runId);

      const cancel = await vigil(["runs", "cancel", answer.runId, "--reason", "cli test"]);
      expect(cancel.stderr).toBe("");
      expect(cancel.code).toBe(EXIT.ok);
      expect(cancel.stdout).toBe(`cancelled: run ${answer.runId}\n`);
      expect(await runState(answer.runId)).toBe("cancelled");

      // Cancelling again is refused by the console: exit 1 with its reason.
      const again = await vigil(["runs", "cancel", answer.runId]);
      expect(again.code).toBe(EXIT.failure);
      expect(again.stderr).toMatch(/^vigil: refused \(409 \w+\): /);
    },
    4 * CLI_MS,
  );

  it(
    "runs logs --follow prints a line written after it started and ends when the run does",
    async () => {
      const trig = await vigil(["schedules", "trigger", scheduleName, "--reason", "follow test", "--json"]);
      const runId = (JSON.parse(trig.stdout) as { runId: string }).runId;
      await insertRunLogs(pool, [{ runId, attempt: 1, level: "info", message: "before follow", atPerf: performance.now() }]);
      const follow = start(["runs", "logs", runId, "--follow", "--interval", "200"]);
      await waitFor("the first line", () => follow.stdout().includes("before follow"), { timeoutMs: CLI_MS });
      await insertRunLogs(pool, [{ runId, attempt: 1, level: "warn", message: "written while following", atPerf: performance.now() }]);
      await waitFor("the line written after it started", () => follow.stdout().includes("written while following"), { timeoutMs: CLI_MS });
      expect(follow.stdout()).toMatch(/\[1\] warn\s+written while following\n/);
      const cancel = await vigil(["runs", "cancel", runId]);
      expect(cancel.code).toBe(EXIT.ok);
      expect(await follow.code).toBe(EXIT.ok);
      expect(follow.stderr()).toBe(`run ${runId} ended: cancelled\n`);
      // Each line once, though it was polled many times.
      expect(follow.stdout().match(/before follow/g)).toHaveLength(1);
    },
    4 * CLI_MS,
  );

  it(
    "reads the console and token from the config file; a human table for schedules",
    async () => {
      const config = path.join(home, "vigil.json");
      fs.writeFileSync(config, JSON.stringify({ url: consoleProcess.baseUrl, token }));
      const r = await vigil(["schedules", "list"], { VIGIL_URL: undefined, VIGIL_TOKEN: undefined, VIGIL_CONFIG: config });
      expect(r.stderr).toBe("");
      expect(r.code).toBe(EXIT.ok);
      expect(r.stdout).toMatch(/^NAME\s+HANDLER\s+STATE/);
      expect(r.stdout).toMatch(new RegExp(`${scheduleName}\\s+demo\\.noop\\s+active`));
    },
    CLI_MS,
  );

  it(
    "a bad token exits 3 saying the console refused it; no token at all exits 3 saying where to put one",
    async () => {
      const bad = await vigil(["runs", "list"], { VIGIL_TOKEN: "vgl_not_a_real_token" });
      expect(bad.code).toBe(EXIT.auth);
      expect(bad.stdout).toBe("");
      expect(bad.stderr).toMatch(/^vigil: the console refused the API token \(401 unauthorized\): it is unknown, revoked or expired/);
      const none = await vigil(["runs", "list"], { VIGIL_TOKEN: undefined });
      expect(none.code).toBe(EXIT.auth);
      expect(none.stderr).toMatch(/no API token: set VIGIL_TOKEN, or put .* in .*config\.json/);
    },
    2 * CLI_MS,
  );

  it(
    "an unreachable console exits 4; a usage mistake exits 2; --help exits 0 on every level",
    async () => {
      const port = await freePort();
      const down = await vigil(["--url", `http://127.0.0.1:${port}`, "alerts", "list"]);
      expect(down.code).toBe(EXIT.unreachable);
      expect(down.stderr).toMatch(/^vigil: cannot reach the console at http:\/\/127\.0\.0\.1:\d+: ECONNREFUSED/);

      expect((await vigil(["runs", "lst"])).code).toBe(EXIT.usage);
      expect((await vigil(["runs", "cancel"])).code).toBe(EXIT.usage);
      expect((await vigil(["runs", "show", "not-an-id"])).code).toBe(EXIT.usage);
      for (const level of [
        [],
        ["schedules"],
        ["schedules", "backfill"],
        ["runs", "logs"],
        ["alerts", "ack"],
        ["audit", "verify"],
        ["apply"],
      ]) {
        const h = await vigil([...level, "--help"]);
        expect(h.code, level.join(" ")).toBe(EXIT.ok);
        expect(h.stdout).toMatch(new RegExp(`^Usage: vigil ${level.join(" ")}`.trimEnd()));
      }
    },
    6 * CLI_MS,
  );

  it(
    "audit verify reports an intact trail (exit 0); backfill is a dry run unless --yes",
    async () => {
      const v = await vigil(["audit", "verify", "--json"]);
      expect(v.code).toBe(EXIT.ok);
      expect(JSON.parse(v.stdout)).toMatchObject({ ok: true });
      const from = new Date(Date.now() - 3600_000).toISOString();
      const to = new Date(Date.now() - 60_000).toISOString();
      const dry = await vigil(["schedules", "backfill", scheduleName, "--from", from, "--to", to, "--json"]);
      expect(dry.stderr).toBe("");
      expect(JSON.parse(dry.stdout)).toMatchObject({ dryRun: true });
    },
    2 * CLI_MS,
  );

  it(
    "works with a scoped token: triggers by name with schedules:read + runs:trigger; a missing scope exits 3 naming it",
    async () => {
      const scoped = await createTestToken(db.url, "operator", { scopes: ["schedules:read", "runs:trigger"] });
      const trig = await vigil(["schedules", "trigger", scheduleName, "--reason", "scoped cli", "--json"], { VIGIL_TOKEN: scoped });
      expect(trig.stderr).toBe("");
      expect(trig.code).toBe(EXIT.ok);
      const list = await vigil(["runs", "list"], { VIGIL_TOKEN: scoped });
      expect(list.code).toBe(EXIT.auth);
      expect(list.stderr).toContain("scope_missing");
      expect(list.stderr).toContain("runs:read");
    },
    2 * CLI_MS,
  );
});
