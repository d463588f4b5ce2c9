// Resolves the database (embedded server or DATABASE_URL), sets up its roles, applies migrations and grants.
import net from "node:net";
import pg from "pg";
import { getEnv } from "../../core/env";
import { migrate } from "../../core/db/migrate";
import { applyGrants } from "../../core/db/grants";
import { superuserWarning } from "../../core/db/superuser-warning";
import { ensureDayPartitions } from "../../core/retention/ensure-partitions";
import { checkReachable, ensureDatabase, startEmbeddedPostgres, type RunningPostgres } from "./postgres";
import { ensureRoles, handOverObjects, type DatabaseLogins } from "./database-roles";
import { findEmbeddedDataDir, loginUrl, readCredentials, type EmbeddedCredentials } from "./embedded-credentials";

export interface PreparedDatabase {
  /** The owner's URL: migrations, the first admin, command line tools. */
  url: string;
  /** What the console and the workers connect with (the owner's URL when no separate roles are configured). */
  consoleUrl: string;
  workerUrl: string;
  embedded?: RunningPostgres;
}

/** The embedded database's URLs for each of its logins. */
export function embeddedUrls(port: number, logins: DatabaseLogins): Omit<PreparedDatabase, "embedded"> {
  return {
    url: loginUrl(port, "vigil", logins.owner),
    consoleUrl: loginUrl(port, "vigil", logins.console),
    workerUrl: loginUrl(port, "vigil", logins.worker),
  };
}

export async function prepareDatabase(log: (line: string) => void): Promise<PreparedDatabase> {
  const env = getEnv();
  if (env.DATABASE_URL) {
    log("using the PostgreSQL server from DATABASE_URL");
    const urls = {
      url: env.DATABASE_URL,
      consoleUrl: env.VIGIL_CONSOLE_DATABASE_URL ?? env.DATABASE_URL,
      workerUrl: env.VIGIL_WORKER_DATABASE_URL ?? env.DATABASE_URL,
    };
    await applyMigrations(urls.url, log);
    await setUpExternalRoles(urls, log);
    const c = new pg.Client({ connectionString: urls.consoleUrl });
    await c.connect();
    try {
      const warning = await superuserWarning(c, "console");
      if (warning) log(`WARNING: ${warning}`);
    } finally {
      await c.end();
    }
    return urls;
  }
  const t0 = performance.now();
  const embedded = await startEmbeddedPostgres({ dataDir: env.VIGIL_DATA_DIR, port: env.VIGIL_PG_PORT, say: log });
  try {
    await ensureDatabase(embedded.url("postgres"), "vigil");
    const urls = embeddedUrls(env.VIGIL_PG_PORT, embedded.credentials);
    await setUpEmbeddedRoles(embedded.url("vigil"), embedded.credentials, () => applyMigrations(urls.url, log));
    log(
      `embedded PostgreSQL up on 127.0.0.1:${env.VIGIL_PG_PORT} (data in ${embedded.dataDir}) in ${Math.round(performance.now() - t0)} ms`,
    );
    return { ...urls, embedded };
  } catch (err) {
    await embedded.stop();
    throw err;
  }
}

/**
 * As the superuser: roles and ownership (which upgrades a database of an older release in place), then the
 * migrations as the owner (`migrateAsOwner`), then pg-boss's schema and the grants. Idempotent.
 */
export async function setUpEmbeddedRoles(superUrl: string, logins: DatabaseLogins, migrateAsOwner: () => Promise<void>): Promise<void> {
  const su = new pg.Client({ connectionString: superUrl, application_name: "vigil-setup" });
  await su.connect();
  try {
    await ensureRoles(su, logins);
    await handOverObjects(su, new URL(superUrl).pathname.slice(1), logins);
    await migrateAsOwner();
    await installQueueSchema(
      superUrl.replace(/\/\/[^@]*@/, `//${encodeURIComponent(logins.owner.user)}:${encodeURIComponent(logins.owner.password)}@`),
    );
    // What the migrations and pg-boss's install just created belongs to the owner; hand the queue's to its role.
    await handOverObjects(su, new URL(superUrl).pathname.slice(1), logins);
    await applyGrants(su, { console: logins.console.user, worker: logins.worker.user });
  } finally {
    await su.end();
  }
}

/** pg-boss creates its schema on its first start; done by the owner here so the application roles need not create schemas. */
async function installQueueSchema(ownerUrl: string): Promise<void> {
  const { startBoss } = await import("../../core/queue/boss");
  const quiet = { error: () => {}, warn: () => {}, info: () => {} } as never;
  const boss = await startBoss({ connectionString: ownerUrl, log: quiet, supervise: false, asQueueRole: false });
  await boss.stop({ graceful: false, close: true });
}

/** With separate console / worker URLs, the owner (DATABASE_URL) applies the grants to their roles at every start. */
async function setUpExternalRoles(urls: Omit<PreparedDatabase, "embedded">, log: (line: string) => void): Promise<void> {
  if (urls.consoleUrl === urls.url && urls.workerUrl === urls.url) return;
  const roles = {
    console: decodeURIComponent(new URL(urls.consoleUrl).username),
    worker: decodeURIComponent(new URL(urls.workerUrl).username),
  };
  const c = new pg.Client({ connectionString: urls.url });
  await c.connect();
  try {
    await installQueueSchema(urls.url);
    const owner = decodeURIComponent(new URL(urls.url).username);
    await handOverObjects(
      c,
      "",
      { owner: { user: owner }, console: { user: roles.console }, worker: { user: roles.worker } },
      { databaseLevel: false },
    );
    await applyGrants(c, roles);
    log(`grants applied to the console role ${roles.console} and the worker role ${roles.worker}`);
  } finally {
    await c.end();
  }
}

/**
 * The database a command line tool works on (npm run migrate, create-admin): DATABASE_URL, else the embedded
 * server of a Vigil that is running (it owns the data folder; its logins are in the folder's credentials file),
 * else the embedded server started for the command (stop `embedded` when done). Migrations are applied in every case.
 */
export async function openDatabaseForCommand(log: (line: string) => void): Promise<PreparedDatabase> {
  const env = getEnv();
  if (!env.DATABASE_URL && (await portInUse(env.VIGIL_PG_PORT))) {
    const logins = runningEmbeddedLogins();
    const urls = embeddedUrls(env.VIGIL_PG_PORT, logins);
    log(`using the embedded PostgreSQL of the running Vigil on 127.0.0.1:${env.VIGIL_PG_PORT}`);
    await setUpEmbeddedRoles(loginUrl(env.VIGIL_PG_PORT, "vigil", logins.superuser), logins, () => applyMigrations(urls.url, log));
    return urls;
  }
  return prepareDatabase(log);
}

/** The logins of the embedded server of VIGIL_DATA_DIR (a running `npm start`'s), from its credentials file. */
export function runningEmbeddedLogins(): EmbeddedCredentials {
  const dir = findEmbeddedDataDir(getEnv().VIGIL_DATA_DIR);
  const found = readCredentials(dir);
  if (!found) {
    throw new Error(
      `No credentials file in ${dir}: start Vigil once with \`npm start\` (it creates the embedded database's logins), or set DATABASE_URL`,
    );
  }
  return found;
}

async function applyMigrations(url: string, log: (line: string) => void): Promise<void> {
  await checkReachable(url);
  const applied = await migrate(url, { onNotice: (m) => log(`migration: ${m}`) });
  log(applied.length ? `applied migrations: ${applied.join(", ")}` : "database schema is current");
  // The history tables' day partitions (core/retention/): a worker's retention duty keeps them ahead, but after a
  // long stop with no worker the console must still be able to write today's events.
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await ensureDayPartitions(c, 7);
  } finally {
    await c.end();
  }
}

export function portInUse(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect({ port, host: "127.0.0.1" });
    s.once("connect", () => {
      s.destroy();
      resolve(true);
    });
    s.once("error", () => resolve(false));
  });
}
