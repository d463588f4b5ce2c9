// The embedded server's credentials: a data folder made by a release with the constant password is upgraded in
// place at the next start (superuser password rotated, roles created, objects handed over, grants applied); a
// local user without Vigil's files cannot log in; `npm run worker` next to a running Vigil connects by itself
// with the worker's login; and a launched worker's /proc/<pid>/environ holds no database password, no secret key
// and no admin password (they come through its settings pipe).
import { execFile, spawnSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrate } from "../core/db/migrate";
import { startEmbeddedPostgres, ensureDatabase, type RunningPostgres } from "./lib/postgres";
import { freePort } from "./lib/free-port";
import { CREDENTIALS_FILE, LEGACY_PASSWORD, loginUrl, readCredentials } from "./lib/embedded-credentials";
import { launch, terminate } from "./lib/processes";
import { splitSettings } from "./lib/handed-settings";
import { startWorker } from "../test/worker-process";
import { waitFor } from "../test/wait-for";

const run = promisify(execFile);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "vigil-embedded-roles-"));
// Opened so that, as root, the server's 'postgres' user keeps the cluster here (as test/postgres-for-tests.ts does).
fs.chmodSync(dir, 0o755);
const dataDir = path.join(dir, "pgdata");
let port: number;
let server: RunningPostgres | undefined;
const LEAST_PRIVILEGE = "20261207000000_least_privilege";

async function query(url: string, sql: string, values: unknown[] = []) {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await c.query(sql, values);
  } finally {
    await c.end();
  }
}

/** What a release before generated credentials left behind: superuser vigil/vigil owning everything, no file. */
async function makeOldReleaseFolder(): Promise<void> {
  const s = await startEmbeddedPostgres({ dataDir, port, persistent: true, durable: false, say: () => {} });
  await ensureDatabase(s.url("postgres"), "vigil");
  await migrate(s.url("vigil"), { before: LEAST_PRIVILEGE, onNotice: () => {} });
  await query(
    s.url("vigil"),
    `INSERT INTO audit_events (actor_type, actor, action, target_type) VALUES ('system', 'old', 'schedule.edit', 'schedule'), ('system', 'old', 'schedule.edit', 'schedule')`,
  );
  await query(s.url("postgres"), `ALTER ROLE vigil PASSWORD '${LEGACY_PASSWORD}'`);
  await s.stop();
  fs.rmSync(path.join(dataDir, CREDENTIALS_FILE));
}

beforeAll(async () => {
  port = await freePort();
  await makeOldReleaseFolder();
}, 120_000);

afterAll(async () => {
  await server?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

const cliEnv = (): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = { ...process.env, VIGIL_DATA_DIR: dataDir, VIGIL_PG_PORT: String(port) };
  delete env.DATABASE_URL;
  return env;
};

describe("the embedded server's credentials", () => {
  it("upgrades an old-release data folder in place at the next start", async () => {
    const r = await run(process.execPath, ["--import", "tsx", "scripts/migrate.ts"], { env: cliEnv() });
    expect(r.stdout).toMatch(new RegExp(`applied migrations: .*${LEAST_PRIVILEGE}`));
    const file = path.join(dataDir, CREDENTIALS_FILE);
    const st = fs.statSync(file);
    expect(st.mode & 0o777).toBe(0o600);
    expect(st.uid).toBe(process.getuid!());
    const logins = readCredentials(dataDir)!;
    expect(logins.superuser.password).not.toBe(LEGACY_PASSWORD);

    server = await startEmbeddedPostgres({ dataDir, port, persistent: true, durable: false, say: () => {} });
    await expect(query(loginUrl(port, "postgres", { user: "vigil", password: LEGACY_PASSWORD }), "SELECT 1")).rejects.toThrow(
      /password authentication failed/,
    );
    const su = loginUrl(port, "vigil", logins.superuser);
    // The old rows are kept; every object of Vigil's schema now belongs to the owner (or the history / queue roles).
    expect((await query(su, "SELECT count(*)::int AS n FROM audit_events")).rows[0].n).toBe(2);
    const leftovers = await query(
      su,
      `SELECT c.relname FROM pg_class c WHERE c.relnamespace IN ('public'::regnamespace, 'pgboss'::regnamespace)
          AND c.relowner = 'vigil'::regrole AND c.relkind IN ('r', 'p', 'v', 'S')
          AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = c.oid AND d.deptype = 'e')`,
    );
    expect(leftovers.rows).toEqual([]);
    const consoleUrl = loginUrl(port, "vigil", logins.console);
    expect((await query(consoleUrl, "SELECT rolsuper FROM pg_roles WHERE rolname = current_user")).rows[0].rolsuper).toBe(false);
    await expect(query(consoleUrl, "DELETE FROM audit_events")).rejects.toThrow(/permission denied/);
    await expect(query(loginUrl(port, "vigil", logins.worker), "UPDATE users SET role = 'admin'")).rejects.toThrow(/permission denied/);
  }, 120_000);

  it.skipIf(process.getuid?.() !== 0)("refuses a local OS user without Vigil's files", async () => {
    const psql = "/usr/lib/postgresql/15/bin/psql";
    const attempts = [
      ["the old constant password", `postgresql://vigil:${LEGACY_PASSWORD}@127.0.0.1:${port}/vigil`],
      ["no password", `postgresql://vigil@127.0.0.1:${port}/vigil`],
      ["the console's name without its password", `postgresql://vigil_console@127.0.0.1:${port}/vigil`],
      ["the Unix socket (peer)", `postgresql:///vigil?host=/tmp&port=${port}&user=vigil`],
      ["the Unix socket as postgres", `postgresql:///postgres?host=/tmp&port=${port}&user=postgres`],
    ];
    for (const [what, url] of attempts) {
      const r = spawnSync("runuser", ["-u", "nobody", "--", psql, "-w", "-X", "-c", "SELECT 1", url!], { encoding: "utf8" });
      expect(r.status, `${what}: ${r.stdout}`).not.toBe(0);
      expect(r.stderr, what).toMatch(
        /password authentication failed|no password supplied|no pg_hba.conf entry|No such file|Connection refused/,
      );
    }
    const read = spawnSync("runuser", ["-u", "nobody", "--", "cat", path.join(dataDir, CREDENTIALS_FILE)], { encoding: "utf8" });
    expect(read.status).not.toBe(0);
  });

  it("lets `npm run worker` next to a running Vigil connect by itself with the worker's login", async () => {
    const logins = readCredentials(dataDir)!;
    const worker = startWorker("", { VIGIL_DATA_DIR: dataDir, VIGIL_PG_PORT: String(port) });
    // startWorker sets DATABASE_URL: "" (unset for the worker's settings); what it connects with is found itself.
    try {
      const su = loginUrl(port, "vigil", logins.superuser);
      await waitFor(
        "the standalone worker to register",
        async () => {
          if (worker.child.exitCode !== null) throw new Error(`worker exited: ${worker.logs.slice(-5).join("\n")}`);
          const { rows } = await query(
            su,
            `SELECT usename FROM pg_stat_activity WHERE datname = 'vigil' AND usename = $1 AND application_name = 'vigil'`,
            [logins.worker.user],
          );
          return rows.length > 0 && (await query(su, "SELECT 1 FROM workers WHERE pid = $1", [worker.pid])).rowCount === 1;
        },
        { timeoutMs: 60_000 },
      );
    } finally {
      await worker.stop();
    }
  }, 90_000);

  it("hands a launched worker its credentials through a pipe: none in /proc/<pid>/environ", async () => {
    const logins = readCredentials(dataDir)!;
    const key = crypto.randomBytes(32).toString("base64");
    const adminPassword = `admin-${crypto.randomBytes(8).toString("hex")}`;
    const workerUrl = loginUrl(port, "vigil", logins.worker);
    // What scripts/start.ts does for each worker.
    const { env, settings } = splitSettings(
      { ...process.env, DATABASE_URL: loginUrl(port, "vigil", logins.owner), VIGIL_SECRET_KEY: key, VIGIL_ADMIN_PASSWORD: adminPassword },
      { VIGIL_ADMIN_PASSWORD: undefined },
    );
    const w = launch(
      "worker",
      ["--import", "tsx", "worker/main.ts"],
      { ...env, VIGIL_PROCESS: "worker", VIGIL_LOG_FORMAT: "json" },
      { quiet: true, exitWithParent: true, settings: { ...settings, DATABASE_URL: workerUrl } },
    );
    try {
      const su = loginUrl(port, "vigil", logins.superuser);
      await waitFor(
        "the launched worker to register",
        async () => (await query(su, "SELECT 1 FROM workers WHERE pid = $1", [w.child.pid])).rowCount === 1,
        {
          timeoutMs: 60_000,
        },
      );
      const environ = fs.readFileSync(`/proc/${w.child.pid}/environ`, "utf8");
      for (const secret of [logins.worker.password, logins.owner.password, logins.superuser.password, key, adminPassword])
        expect(environ.includes(secret)).toBe(false);
      expect(environ).not.toMatch(/DATABASE_URL|VIGIL_SECRET_KEY|VIGIL_ADMIN_PASSWORD/);
    } finally {
      await terminate(w);
    }
  }, 90_000);
});
