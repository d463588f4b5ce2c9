// The README's run command, exercised as an operator would: `npm start` on an empty data folder,
// Ctrl-C (SIGINT to the whole process group), nothing left running, and a second start keeps the data.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { expect, test } from "@playwright/test";
import { freePort } from "../test/postgres-for-tests";
import { loginUrl, readCredentials } from "../scripts/lib/embedded-credentials";
import { waitFor } from "../test/wait-for";

test.describe.configure({ timeout: 240_000 });

function processesMentioning(needle: string): number[] {
  const found: number[] = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmd = fs.readFileSync(`/proc/${entry}/cmdline`, "utf8").replace(/\0/g, " ");
      if (cmd.includes(needle)) found.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return found;
}

async function health(port: number): Promise<{ ready?: boolean; worker?: string } | null> {
  try {
    return (await (await fetch(`http://127.0.0.1:${port}/api/health`)).json()) as { ready?: boolean; worker?: string };
  } catch {
    return null;
  }
}

test("npm start brings up console and worker, Ctrl-C leaves nothing running, data survives a restart", async () => {
  // mkdtemp's folder is private (0700): as root, the server's "postgres" user cannot reach a data folder inside it,
  // and npm start must still work (keeping the data elsewhere and saying where) without opening the folder.
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), "vigil-start-"));
  const dataDir = path.join(parent, "pgdata");
  const pgPort = await freePort();
  const httpPort = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, VIGIL_DATA_DIR: dataDir, VIGIL_PG_PORT: String(pgPort), PORT: String(httpPort) };
  delete env.DATABASE_URL;
  const output: string[] = [];

  const start = (): ChildProcess => {
    const child = spawn("npm", ["start"], { env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    child.stdout!.on("data", (d) => output.push(String(d)));
    child.stderr!.on("data", (d) => output.push(String(d)));
    return child;
  };
  const ctrlC = async (child: ChildProcess) => {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`npm start had already exited (${child.exitCode ?? child.signalCode}):\n${output.join("").slice(-3000)}`);
    }
    const exited = new Promise((r) => child.on("exit", r));
    process.kill(-child.pid!, "SIGINT");
    await exited;
  };
  /** Where the server keeps the data: the data folder, or the folder npm start announced instead (as root). */
  const serverDataDir = () => /the database is kept in (\S+pgdata)/.exec(output.join(""))?.[1] ?? dataDir;
  /** The owner's login, from the credentials npm start generated in the data folder (owner-only). */
  const dbUrl = () => loginUrl(pgPort, "vigil", readCredentials(serverDataDir())!.owner);

  const ready = (child: ChildProcess) => async () => {
    if (child.exitCode !== null) throw new Error(`npm start exited (${child.exitCode}):\n${output.join("").slice(-3000)}`);
    return (await health(httpPort))?.ready === true;
  };
  const first = start();
  try {
    await waitFor("console and worker up", ready(first), { timeoutMs: 180_000, intervalMs: 500 });
    // No constant password opens the embedded database: only the generated logins do.
    const legacy = new pg.Client({ connectionString: `postgres://vigil:vigil@127.0.0.1:${pgPort}/vigil` });
    await expect(legacy.connect()).rejects.toThrow(/password authentication failed/);
    await legacy.end().catch(() => undefined);
    expect(fs.statSync(path.join(serverDataDir(), "vigil-credentials.json")).mode & 0o777).toBe(0o600);
    const c = new pg.Client({ connectionString: dbUrl() });
    await c.connect();
    await c.query("INSERT INTO concurrency_groups (name, max_running) VALUES ('kept-across-restarts', 3)");
    // The product's own database is durable: commits reach the disk (test clusters are the ones without fsync).
    expect((await c.query("SHOW fsync")).rows[0].fsync).toBe("on");
    expect((await c.query("SHOW synchronous_commit")).rows[0].synchronous_commit).toBe("on");
    await c.end();
  } finally {
    await ctrlC(first);
  }
  // npm itself may exit on the signal before the launcher has finished its orderly stop.
  if (process.getuid?.() === 0) expect(fs.statSync(parent).mode & 0o777).toBe(0o700);
  await waitFor(
    "no process left",
    () => processesMentioning(serverDataDir()).length === 0 && processesMentioning(`-p ${httpPort}`).length === 0,
    { timeoutMs: 30_000 },
  );
  await waitFor("the launcher to report it stopped", () => output.join("").includes("[start] stopped"), { timeoutMs: 5_000 });
  expect(fs.existsSync(path.join(serverDataDir(), "postmaster.pid"))).toBe(false);

  const second = start();
  try {
    await waitFor("second start up", ready(second), { timeoutMs: 120_000, intervalMs: 500 });
    const c = new pg.Client({ connectionString: dbUrl() });
    await c.connect();
    const { rows } = await c.query("SELECT max_running FROM concurrency_groups WHERE name = 'kept-across-restarts'");
    await c.end();
    expect(rows[0]?.max_running).toBe(3);
  } finally {
    await ctrlC(second);
  }
  await waitFor("no process left after the second stop", () => processesMentioning(serverDataDir()).length === 0, { timeoutMs: 30_000 });
  fs.rmSync(path.dirname(serverDataDir()), { recursive: true, force: true });
  fs.rmSync(parent, { recursive: true, force: true });
});
