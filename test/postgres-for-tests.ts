// One embedded PostgreSQL per test run, in a temporary folder on a free port, with a template
// database migrated once; every test file clones it (CREATE DATABASE … TEMPLATE) in milliseconds.
// With DATABASE_URL set (a real server), the template lives there instead; it must be local.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { migrate } from "../core/db/migrate";
import { startEmbeddedPostgres, ensureDatabase } from "../scripts/lib/postgres";
import { freePort } from "../scripts/lib/free-port";

export { freePort };

export const TEMPLATE_DB = "vigil_test_template";

export function refuseNonLocal(url: string): void {
  const host = new URL(url).hostname;
  if (!["127.0.0.1", "localhost", "::1", "[::1]"].includes(host)) {
    throw new Error(`Tests refuse to run against a non-local database (${host}); unset DATABASE_URL or point it at localhost.`);
  }
}

export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/**
 * Starts the server (unless TEST_DATABASE_URL names one) and prepares the template database. Tests run without
 * fsync (a throwaway cluster); benchmarks pass `durable: true` so their figures are those of the product's
 * own settings.
 */
export async function startTestPostgres(
  opts: { durable?: boolean; settings?: Record<string, string> } = {},
): Promise<{ adminUrl: string; stop: () => Promise<void> }> {
  const external = process.env.TEST_DATABASE_URL;
  let adminUrl: string;
  let stop = async () => {};
  if (external) {
    refuseNonLocal(external);
    adminUrl = external;
  } else {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "vigil-test-pg-"));
    // This folder is the test run's own: opened so that, as root, the server's 'postgres' user can keep the
    // throwaway cluster in it (otherwise scripts/lib/postgres-as-root.ts would place it under /var/lib/vigil).
    fs.chmodSync(dir, 0o755);
    const server = await startEmbeddedPostgres({
      dataDir: path.join(dir, "data"),
      port: await freePort(),
      persistent: false,
      durable: opts.durable ?? false,
      settings: opts.settings,
    });
    adminUrl = server.url("postgres");
    stop = async () => {
      await server.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    };
  }
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${TEMPLATE_DB} WITH (FORCE)`);
  await admin.end();
  await ensureDatabase(adminUrl, TEMPLATE_DB);
  const templateUrl = withDatabase(adminUrl, TEMPLATE_DB);
  await migrate(templateUrl);
  await installBossSchema(templateUrl);
  return { adminUrl, stop };
}

/** pg-boss creates its schema on first start; doing it once in the template saves it per clone. */
async function installBossSchema(url: string): Promise<void> {
  const { startBoss } = await import("../core/queue/boss");
  const quiet = { error: () => {}, warn: () => {}, info: () => {} } as never;
  const boss = await startBoss({ connectionString: url, log: quiet, supervise: false });
  await boss.stop({ graceful: false, close: true });
}

let counter = 0;

/** Clones the template into a fresh database and returns its URL. */
export async function cloneTemplate(adminUrl: string, label = "t"): Promise<string> {
  const name = `vigil_${label
    .replace(/[^a-z0-9]/gi, "_")
    .toLowerCase()
    .slice(0, 30)}_${process.pid}_${Date.now().toString(36)}_${counter++}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name} TEMPLATE ${TEMPLATE_DB}`);
  } finally {
    await admin.end();
  }
  return withDatabase(adminUrl, name);
}

export async function dropDatabase(adminUrl: string, url: string): Promise<void> {
  const name = new URL(url).pathname.slice(1);
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}
