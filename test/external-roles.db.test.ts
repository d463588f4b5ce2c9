// An external server set up with the SQL of docs/how-to/database-roles.md: `npm run migrate` with the owner's
// DATABASE_URL and the console's and worker's URLs migrates, hands the history and queue tables to their roles and
// applies the grants; the console and the worker then work within them. A superuser DATABASE_URL alone still
// works, with a warning.
import { execFile } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import { promisify } from "node:util";
import pino from "pino";
import { describe, expect, inject, it } from "vitest";
import { runAs, asLogin } from "./role-database";
import { withDatabase } from "./postgres-for-tests";
import { startBoss, ensureRunQueues } from "../core/queue/boss";

const run = promisify(execFile);
const adminUrl = inject("adminUrl");

function sqlBlocks(): string[] {
  const md = fs.readFileSync("docs/how-to/database-roles.md", "utf8");
  return [...md.matchAll(/```sql\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

async function runScript(url: string, script: string): Promise<void> {
  for (const statement of script
    .split(/;\s*\n/)
    .map((s) => s.trim())
    .filter(Boolean)) {
    // Roles are cluster-wide: another test file of this run may have created the NOLOGIN ones already.
    await runAs(url, statement).catch((err: { code?: string }) => {
      if (err.code !== "42710") throw err;
    });
  }
}

function migrateCli(env: Record<string, string>) {
  const full: NodeJS.ProcessEnv = { ...process.env, ...env };
  return run(process.execPath, ["--import", "tsx", "scripts/migrate.ts"], { env: full }).then(
    (r) => ({ code: 0, out: r.stdout }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, out: e.stdout + e.stderr }),
  );
}

describe("an external server with the documented roles", () => {
  it("migrates, hands over and grants; the roles then work within their grants", async () => {
    const database = `vigil_ext_${crypto.randomBytes(4).toString("hex")}`;
    const pw = {
      owner: crypto.randomBytes(12).toString("hex"),
      console: crypto.randomBytes(12).toString("hex"),
      worker: crypto.randomBytes(12).toString("hex"),
    };
    const [server, inDatabase] = sqlBlocks();
    await runScript(
      adminUrl,
      server!
        .replace("'owner-password'", `'${pw.owner}'`)
        .replace("'console-password'", `'${pw.console}'`)
        .replace("'worker-password'", `'${pw.worker}'`)
        .replace(/DATABASE vigil\b/g, `DATABASE ${database}`),
    );
    const url = withDatabase(adminUrl, database);
    await runScript(url, inDatabase!);
    const owner = asLogin(url, { user: "vigil_owner", password: pw.owner });
    const consoleUrl = asLogin(url, { user: "vigil_console", password: pw.console });
    const workerUrl = asLogin(url, { user: "vigil_worker", password: pw.worker });

    const r = await migrateCli({ DATABASE_URL: owner, VIGIL_CONSOLE_DATABASE_URL: consoleUrl, VIGIL_WORKER_DATABASE_URL: workerUrl });
    expect(r.out).toMatch(/grants applied to the console role vigil_console and the worker role vigil_worker/);
    expect(r.code).toBe(0);

    await runAs(
      consoleUrl,
      `INSERT INTO audit_events (actor_type, actor, action, target_type) VALUES ('system', 'x', 'schedule.edit', 'schedule')`,
    );
    await expect(runAs(consoleUrl, "DELETE FROM audit_events")).rejects.toThrow(/permission denied/);
    await expect(runAs(workerUrl, "UPDATE users SET role = 'admin'")).rejects.toThrow(/permission denied/);
    await runAs(workerUrl, "SELECT vigil_ensure_day_partition('run_logs', '2031-03-04')");
    await runAs(workerUrl, "ALTER TABLE run_logs DETACH PARTITION run_logs_p20310304 CONCURRENTLY");
    await runAs(workerUrl, "DROP TABLE run_logs_p20310304");
    // A queue the worker creates at run time is usable by the console (both act as vigil_queue for pg-boss).
    const boss = await startBoss({ connectionString: workerUrl, log: pino({ level: "silent" }), supervise: false });
    try {
      await ensureRunQueues(boss, ["external.roles"]);
    } finally {
      await boss.stop({ graceful: false, close: true });
    }
    const consoleBoss = await startBoss({ connectionString: consoleUrl, log: pino({ level: "silent" }), supervise: false });
    try {
      expect(await consoleBoss.send("vigil-run.external.roles", { a: 1 })).toBeTruthy();
    } finally {
      await consoleBoss.stop({ graceful: false, close: true });
    }
    await runAs(adminUrl, `DROP DATABASE ${database} WITH (FORCE)`);
  }, 120_000);

  it("warns when a single DATABASE_URL is a superuser", async () => {
    const database = `vigil_su_${crypto.randomBytes(4).toString("hex")}`;
    await runAs(adminUrl, `CREATE DATABASE ${database}`);
    const r = await migrateCli({ DATABASE_URL: withDatabase(adminUrl, database) });
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/WARNING: the console connects to PostgreSQL as \S+, a superuser/);
    await runAs(adminUrl, `DROP DATABASE ${database} WITH (FORCE)`);
  }, 120_000);
});
