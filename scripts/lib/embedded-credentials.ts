// The embedded server's logins: a bootstrap superuser, the owner, the console and the worker, each with a random
// password generated on first use and kept in CREDENTIALS_FILE in the data folder (mode 0600, owned by the user
// running Vigil — as root the server's 'postgres' user cannot read it). Nothing is a constant: whoever lacks this
// file cannot log in (pg_hba.conf allows only scram-sha-256 password logins over loopback). Every command line
// tool finds a running or stopped Vigil's logins here (openDatabaseForCommand, the worker's own start).
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { z } from "zod";
import { ROOT_PLACE, placedDataDir } from "./postgres-as-root";
import type { DatabaseLogins, RoleLogin } from "./database-roles";

export const CREDENTIALS_FILE = "vigil-credentials.json";
/** The superuser of every embedded cluster (initdb's bootstrap user; its password is the file's). */
export const EMBEDDED_SUPERUSER = "vigil";
/** What releases before generated credentials used for it: an old data folder is recognised and rotated by it. */
export const LEGACY_PASSWORD = "vigil";

export interface EmbeddedCredentials extends DatabaseLogins {
  superuser: RoleLogin;
}

const login = z.object({ user: z.string().min(1), password: z.string().min(16) });
const fileSchema = z.object({ superuser: login, owner: login, console: login, worker: login });

const randomPassword = () => crypto.randomBytes(24).toString("base64url");

export function credentialsPath(dataDir: string): string {
  return path.join(path.resolve(dataDir), CREDENTIALS_FILE);
}

export function readCredentials(dataDir: string): EmbeddedCredentials | null {
  const file = credentialsPath(dataDir);
  if (!fs.existsSync(file)) return null;
  const parsed = fileSchema.safeParse(JSON.parse(fs.readFileSync(file, "utf8")));
  if (!parsed.success) throw new Error(`${file} is not a valid credentials file: remove it to have new passwords generated`);
  return parsed.data;
}

/** New random passwords for every login. */
export function generateCredentials(): EmbeddedCredentials {
  return {
    superuser: { user: EMBEDDED_SUPERUSER, password: randomPassword() },
    owner: { user: "vigil_owner", password: randomPassword() },
    console: { user: "vigil_console", password: randomPassword() },
    worker: { user: "vigil_worker", password: randomPassword() },
  };
}

/** Writes the file (owner-only; replaced atomically), readable only by the user running Vigil. */
export function writeCredentials(dataDir: string, credentials: EmbeddedCredentials): void {
  const file = credentialsPath(dataDir);
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
  fs.renameSync(tmp, file);
}

/** The URL of a database on the embedded server listening on port, as one of its logins. */
export function loginUrl(port: number, database: string, who: RoleLogin): string {
  return `postgres://${encodeURIComponent(who.user)}:${encodeURIComponent(who.password)}@127.0.0.1:${port}/${database}`;
}

/**
 * Where `npm start` keeps the cluster for this VIGIL_DATA_DIR: the folder itself, or (as root, when the postgres
 * user could not reach it) its placed copy under ROOT_PLACE.
 */
export function findEmbeddedDataDir(configured: string): string {
  const dir = path.resolve(configured);
  if (process.getuid?.() !== 0 || fs.existsSync(path.join(dir, "PG_VERSION"))) return dir;
  const placed = placedDataDir(dir);
  return placed.startsWith(ROOT_PLACE) && fs.existsSync(placed) ? placed : dir;
}

/** Where `npm start` with the embedded server keeps the audit anchors by default: beside the credentials file. */
export const ANCHOR_FILE = "vigil-audit-anchors.jsonl";
export function defaultAnchorFile(dataDir: string): string {
  return path.join(path.resolve(dataDir), ANCHOR_FILE);
}

/**
 * The audit anchor file when VIGIL_AUDIT_ANCHOR_FILE is not set: in the embedded server's data folder, or (with
 * DATABASE_URL) in the folder above VIGIL_DATA_DIR (.vigil by default), outside the database either way.
 */
export function defaultAnchorFileFor(env: { DATABASE_URL?: string; VIGIL_DATA_DIR: string }): string {
  return env.DATABASE_URL
    ? defaultAnchorFile(path.dirname(path.resolve(env.VIGIL_DATA_DIR)))
    : defaultAnchorFile(findEmbeddedDataDir(env.VIGIL_DATA_DIR));
}
