// Embedded PostgreSQL for `npm start` and the test suite: one data folder, reused across starts,
// and a clear one-line diagnosis for each way starting it usually goes wrong.
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import pg from "pg";
import { ensurePostgresUser, placeDataDir, placePrograms, PlacementError } from "./postgres-as-root";
import { findPostgresPrograms, initCluster, startServer, type RunAs, type ServerProcess } from "./postgres-server";
import {
  EMBEDDED_SUPERUSER,
  LEGACY_PASSWORD,
  credentialsPath,
  generateCredentials,
  loginUrl,
  readCredentials,
  writeCredentials,
  type EmbeddedCredentials,
} from "./embedded-credentials";

export const EMBEDDED_MAJOR = 18;

export class StartupError extends Error {}

/**
 * The embedded server's own settings, written to SERVER_CONF in its data folder at every start and included from
 * postgresql.conf: a config file, so `ALTER SYSTEM` (postgresql.auto.conf) still overrides any of them — which a
 * `-c` flag would not. Sized for retention (README "Retention"): a pass expiring a day at 1,000 schedules a minute
 * writes ≈ 0.7–1.5 GB of WAL, mostly full-page images of the pages it deletes from.
 */
export const SERVER_CONF = "vigil-server.conf";
export const SERVER_SETTINGS: Record<string, string> = {
  // Above a retention pass's WAL: with the default 1 GB a pass requested checkpoints back to back, and every page it
  // touched after each one logged a full image again. Checkpoints stay timed (checkpoint_timeout, 5 min).
  max_wal_size: "4GB",
  // Full-page images compressed: the only method this build of the server offers (no lz4/zstd).
  wal_compression: "pglz",
};

/** Writes SERVER_CONF (SERVER_SETTINGS) into the data folder and makes postgresql.conf include it, once. */
export function writeServerSettings(dataDir: string, runAs?: RunAs): void {
  const conf = path.join(dataDir, SERVER_CONF);
  fs.writeFileSync(
    conf,
    `# Written by Vigil at every start of the embedded server (scripts/lib/postgres.ts); ALTER SYSTEM overrides these.\n${Object.entries(
      SERVER_SETTINGS,
    )
      .map(([k, v]) => `${k} = '${v}'`)
      .join("\n")}\n`,
    { mode: 0o600 },
  );
  if (runAs) fs.chownSync(conf, runAs.uid, runAs.gid);
  const main = path.join(dataDir, "postgresql.conf");
  const include = `include_if_exists = '${SERVER_CONF}'`;
  if (!fs.readFileSync(main, "utf8").split("\n").includes(include)) fs.appendFileSync(main, `\n${include}\n`);
}

/**
 * Who may connect (pg_hba.conf, rewritten at every start): password logins checked by scram-sha-256 over loopback
 * TCP, nothing else — no trust, no peer, no Unix socket — so a local user without the data folder's credentials
 * file cannot log in as any role.
 */
export const HBA_CONF = `# Written by Vigil at every start of the embedded server (scripts/lib/postgres.ts).
host all all 127.0.0.1/32 scram-sha-256
host all all ::1/128 scram-sha-256
`;

export function writeHba(dataDir: string, runAs?: RunAs): void {
  const file = path.join(dataDir, "pg_hba.conf");
  fs.writeFileSync(file, HBA_CONF, { mode: 0o600 });
  if (runAs) fs.chownSync(file, runAs.uid, runAs.gid);
}

export interface RunningPostgres {
  /** A database's URL as the superuser (setting up roles, tests' fixtures). */
  url(database: string): string;
  /** The cluster's logins (from its credentials file). */
  credentials: EmbeddedCredentials;
  port: number;
  /** Where the cluster's files are. */
  dataDir: string;
  stop(): Promise<void>;
  /** Settles when the running server process ends (stopped, crashed or killed), with how it ended. */
  exited(): Promise<string>;
  /**
   * Starts the server again on the same data folder and port after it died (PostgreSQL recovers from its
   * write-ahead log by itself); rejects like the first start when it cannot.
   */
  restart(): Promise<void>;
}

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once("error", () => resolve(false));
    server.listen({ port, host: "127.0.0.1" }, () => server.close(() => resolve(true)));
  });
}

function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Refuses data folders this build cannot use, and clears a lock left by a crashed server. */
export function checkDataDir(dir: string): "fresh" | "existing" {
  if (!fs.existsSync(dir) || fs.readdirSync(dir).length === 0) return "fresh";
  const versionFile = path.join(dir, "PG_VERSION");
  if (!fs.existsSync(versionFile)) {
    throw new StartupError(
      `The data folder ${dir} is not empty but holds no PostgreSQL cluster: empty it, or point VIGIL_DATA_DIR at another folder.`,
    );
  }
  const major = Number(fs.readFileSync(versionFile, "utf8").trim());
  if (major !== EMBEDDED_MAJOR) {
    throw new StartupError(
      `The data folder ${dir} was made by PostgreSQL ${major}, but the embedded server is ${EMBEDDED_MAJOR}: dump it with pg_dump ${major} and start with a new VIGIL_DATA_DIR, or set DATABASE_URL to a PostgreSQL ${major} server.`,
    );
  }
  const pidFile = path.join(dir, "postmaster.pid");
  if (fs.existsSync(pidFile)) {
    const pid = Number(fs.readFileSync(pidFile, "utf8").split("\n")[0]);
    if (pid && processIsAlive(pid)) {
      throw new StartupError(
        `The data folder ${dir} is in use by a running PostgreSQL (pid ${pid}), probably another Vigil: stop it (kill ${pid}) or set VIGIL_DATA_DIR to another folder.`,
      );
    }
    // A crash left the lock behind; the server that owned it is gone, so the lock is stale.
    fs.rmSync(pidFile);
  }
  return "existing";
}

export async function startEmbeddedPostgres(opts: {
  dataDir: string;
  port: number;
  persistent?: boolean;
  /**
   * false only for throwaway test clusters: fsync off makes commits cheap and a power cut may then corrupt the
   * folder. The product's own database (npm start) is always durable.
   */
  durable?: boolean;
  /** Extra server settings (`-c name=value`), e.g. shared_preload_libraries for a profiling bench. */
  settings?: Record<string, string>;
  onLog?: (line: string) => void;
  /**
   * Another PostgreSQL's programs (the folder holding bin/, e.g. Debian's /usr/lib/postgresql/15) instead of the
   * embedded one: the test of the DATABASE_URL backup path needs a server as old as the machine's pg_dump.
   */
  programs?: string;
  /** Lines for the operator: where the programs and the data are when they cannot stay where they were asked. */
  say?: (line: string) => void;
}): Promise<RunningPostgres> {
  const say = opts.say ?? ((line: string) => process.stderr.write(`[postgres] ${line}\n`));
  if (!(await portIsFree(opts.port))) {
    throw new StartupError(
      `Port ${opts.port} is already taken, so the embedded PostgreSQL cannot listen on it: stop whatever uses it, or set VIGIL_PG_PORT to a free port.`,
    );
  }
  const programs = opts.programs ? { root: opts.programs, version: "system" } : findPostgresPrograms();
  let programsDir = programs.root;
  let dataDir = path.resolve(opts.dataDir);
  // As root the server runs as 'postgres' (PostgreSQL refuses root), placed where that user can reach.
  let runAs: RunAs | undefined;
  if (process.getuid?.() === 0) {
    try {
      runAs = ensurePostgresUser();
      programsDir = placePrograms(programs, runAs, say);
      dataDir = placeDataDir(dataDir, runAs, say);
    } catch (err) {
      throw err instanceof PlacementError ? new StartupError(err.message) : err;
    }
  }
  const state = checkDataDir(dataDir);
  const logs: string[] = [];
  const onLog = (m: string) => {
    logs.push(m);
    opts.onLog?.(m);
  };
  // An existing folder without a credentials file was made by a release with the constant password: its superuser's
  // password is rotated to the new file's once the server is up.
  let credentials = state === "existing" ? readCredentials(dataDir) : null;
  const legacy = credentials === null && state === "existing";
  credentials ??= generateCredentials();
  if (state === "fresh") {
    fs.mkdirSync(path.dirname(dataDir), { recursive: true });
    try {
      const superuser = credentials.superuser;
      await initCluster({ programs: programsDir, dataDir, user: superuser.user, password: superuser.password, runAs, onLog });
    } catch (err) {
      throw new StartupError(`The embedded PostgreSQL could not create its cluster in ${dataDir}: ${(err as Error).message}`, {
        cause: err,
      });
    }
  }
  if (state === "fresh" || legacy) writeCredentials(dataDir, credentials);
  else keepCredentialsOwn(dataDir);
  writeServerSettings(dataDir, runAs);
  writeHba(dataDir, runAs);
  const start = async (): Promise<ServerProcess> => {
    logs.length = 0;
    try {
      return await startServer({
        programs: programsDir,
        dataDir,
        port: opts.port,
        runAs,
        onLog,
        flags: [
          "-c",
          "listen_addresses=127.0.0.1",
          "-c",
          "password_encryption=scram-sha-256",
          "-c",
          "max_connections=300",
          ...(opts.durable === false ? ["-c", "fsync=off"] : []),
          // A packaged server's socket folder (/var/run/postgresql) may not exist here: TCP only.
          ...(opts.programs ? ["-c", "unix_socket_directories="] : []),
          ...Object.entries(opts.settings ?? {}).flatMap(([k, v]) => ["-c", `${k}=${v}`]),
        ],
      });
    } catch (err) {
      const detail = logs
        .join("")
        .split("\n")
        .filter((l) => /FATAL|ERROR/.test(l))
        .slice(-1)[0];
      throw new StartupError(`The embedded PostgreSQL did not start${detail ? `: ${detail.trim()}` : ""} (data folder ${dataDir}).`, {
        cause: err,
      });
    }
  };
  let server = await start();
  try {
    await rotateLegacyPassword(opts.port, credentials);
  } catch (err) {
    await server.stop();
    throw err;
  }
  const superuser = credentials.superuser;
  return {
    url: (database) => loginUrl(opts.port, database, superuser),
    credentials,
    port: opts.port,
    dataDir,
    exited: () => server.exited,
    async restart() {
      server = await start();
    },
    async stop() {
      await server.stop();
      // A placed folder (postgres-as-root.ts) goes with its parent, which holds nothing else worth keeping.
      if (opts.persistent === false)
        fs.rmSync(dataDir === path.resolve(opts.dataDir) ? dataDir : path.dirname(dataDir), { recursive: true, force: true });
    },
  };
}

/** A restored folder's credentials file came back owned by the server's user: it belongs to the user running Vigil. */
function keepCredentialsOwn(dataDir: string): void {
  const file = credentialsPath(dataDir);
  const uid = process.getuid?.();
  if (uid === undefined || !fs.existsSync(file)) return;
  if (fs.statSync(file).uid !== uid) fs.chownSync(file, uid, process.getgid!());
  fs.chmodSync(file, 0o600);
}

/**
 * Makes sure the superuser's password is the credentials file's: a folder from a release with the constant password
 * (or one whose rotation was interrupted) still accepts that one, and it is replaced at once.
 */
async function rotateLegacyPassword(port: number, credentials: EmbeddedCredentials): Promise<void> {
  const su = credentials.superuser;
  const tryConnect = async (password: string) => {
    const c = new pg.Client({ connectionString: loginUrl(port, "postgres", { user: su.user, password }) });
    try {
      await c.connect();
      return c;
    } catch (err) {
      await c.end().catch(() => undefined);
      if ((err as { code?: string }).code === "28P01") return null;
      throw err;
    }
  };
  const current = await tryConnect(su.password);
  if (current) return void (await current.end());
  const old = su.user === EMBEDDED_SUPERUSER ? await tryConnect(LEGACY_PASSWORD) : null;
  if (!old) {
    throw new StartupError(
      `The embedded PostgreSQL refused the superuser's password from its credentials file: restore the file that belongs to this data folder.`,
    );
  }
  try {
    await old.query(`ALTER ROLE ${old.escapeIdentifier(su.user)} WITH PASSWORD ${old.escapeLiteral(su.password)}`);
  } finally {
    await old.end();
  }
}

export async function ensureDatabase(adminUrl: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const found = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
    if (found.rowCount === 0) await client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}`);
  } finally {
    await client.end();
  }
}

/** Connects once to fail early with a line a person can act on. */
export async function checkReachable(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
    await client.query("SELECT 1");
  } catch (err) {
    const safe = url.replace(/\/\/([^:@/]+):[^@]*@/, "//$1:***@");
    throw new StartupError(
      `Cannot reach PostgreSQL at ${safe} (${(err as Error).message}): check that the server runs and DATABASE_URL is right, or unset DATABASE_URL to use the embedded server.`,
    );
  } finally {
    await client.end().catch(() => undefined);
  }
}
