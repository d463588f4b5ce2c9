// `npm run backup -- [--out file]`: a consistent backup of Vigil's database while it runs.
// Embedded database: the whole cluster through the server's online-backup API (scripts/lib/physical-backup.ts),
// a .tar.gz restored with `npm run restore`. DATABASE_URL: pg_dump's custom format (pg_dump must be on PATH, of the
// server's major version or newer), restored with `npm run restore` (pg_restore) as well.
// Without --out a backup goes to backups/ in the folder the command runs in (the checkout, under npm run): git ignores
// that folder, so a backup (users, token hashes, encrypted secrets) is never committed by accident, and it is kept
// apart from .vigil/, which a reset of the local database deletes. The folder is private to its owner.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { getEnv } from "../core/env";
import { findEmbeddedDataDir, loginUrl, readCredentials } from "./lib/embedded-credentials";
import { startEmbeddedPostgres, StartupError, type RunningPostgres } from "./lib/postgres";
import { backupEmbeddedCluster } from "./lib/physical-backup";
import { LOCAL_SECRET_KEY_FILE } from "./lib/local-secret-key";
import { portInUse } from "./lib/prepare-database";
import { ensurePostgresUser, placeDataDir } from "./lib/postgres-as-root";
import { printUsageIfAsked } from "../core/cli/print-usage";

const USAGE = `usage: npm run backup -- [--out FILE]
A consistent backup of Vigil's database while it runs (default folder: backups/, private and ignored by git).`;
printUsageIfAsked(USAGE);

const say = (line: string) => process.stdout.write(`[backup] ${line}\n`);

const BACKUP_DIR = "backups";

/** backups/vigil-backup-<UTC time>.<ext>, creating backups/ (mode 0700) if needed. */
function defaultOut(ext: string): string {
  fs.mkdirSync(BACKUP_DIR, { recursive: true, mode: 0o700 });
  return path.join(BACKUP_DIR, `vigil-backup-${new Date().toISOString().replace(/[-:]/g, "").replace(/\..*/, "")}.${ext}`);
}

function dumpExternal(url: string, out: string): number {
  const version = spawnSync("pg_dump", ["--version"], { encoding: "utf8" });
  if (version.error) {
    say("pg_dump is not on PATH: install PostgreSQL's client programs of your server's major version (or newer) and run this again");
    return 2;
  }
  say(`${version.stdout.trim()} → ${out}`);
  // A custom-format dump runs in one REPEATABLE READ transaction: a consistent snapshot while Vigil keeps writing.
  const r = spawnSync("pg_dump", ["--format=custom", "--no-owner", `--file=${out}.partial`, `--dbname=${url}`], { stdio: "inherit" });
  if (r.status !== 0) {
    fs.rmSync(`${out}.partial`, { force: true });
    say("pg_dump failed (see above)");
    return 1;
  }
  fs.renameSync(`${out}.partial`, out);
  say(`done: ${out} (${fs.statSync(out).size} bytes). VIGIL_SECRET_KEY is not in it: keep it alongside`);
  return 0;
}

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { out: { type: "string" } } });
  const env = getEnv();
  if (env.DATABASE_URL) return dumpExternal(env.DATABASE_URL, path.resolve(values.out ?? defaultOut("dump")));

  const out = path.resolve(values.out ?? defaultOut("tar.gz"));
  if (fs.existsSync(out)) {
    say(`${out} exists already: name another --out`);
    return 2;
  }
  let started: RunningPostgres | undefined;
  if (await portInUse(env.VIGIL_PG_PORT)) say(`backing up the embedded PostgreSQL of the running Vigil on 127.0.0.1:${env.VIGIL_PG_PORT}`);
  else {
    // Vigil is stopped: start its server for the backup, but never create an empty cluster just to back it up.
    const configured = path.resolve(env.VIGIL_DATA_DIR);
    const dataDir = process.getuid?.() === 0 ? placeDataDir(configured, ensurePostgresUser(), () => {}) : configured;
    if (!fs.existsSync(path.join(dataDir, "PG_VERSION"))) {
      say(`there is no database in ${dataDir} to back up (VIGIL_DATA_DIR), and no Vigil runs on port ${env.VIGIL_PG_PORT}`);
      return 2;
    }
    started = await startEmbeddedPostgres({ dataDir: env.VIGIL_DATA_DIR, port: env.VIGIL_PG_PORT, say });
  }
  try {
    const t0 = performance.now();
    // The superuser's login from the data folder's credentials file (the running Vigil's, or the one just started).
    const logins = started?.credentials ?? readCredentials(findEmbeddedDataDir(env.VIGIL_DATA_DIR));
    if (!logins) {
      say(
        `no credentials file in the data folder of VIGIL_DATA_DIR (${env.VIGIL_DATA_DIR}): run the backup with the same VIGIL_DATA_DIR as Vigil`,
      );
      return 2;
    }
    const manifest = await backupEmbeddedCluster({
      adminUrl: loginUrl(env.VIGIL_PG_PORT, "postgres", logins.superuser),
      appUrl: loginUrl(env.VIGIL_PG_PORT, "vigil", logins.superuser),
      out,
      say,
    });
    const c = manifest.counts;
    say(
      `done in ${Math.round(performance.now() - t0)} ms: ${out} (${fs.statSync(out).size} bytes), the database as of ${manifest.finishedAt}` +
        (c ? ` — ${c.schedules} schedules, ${c.runs} runs, ${c.auditEvents} audit rows` : ""),
    );
    say(
      env.VIGIL_SECRET_KEY
        ? "VIGIL_SECRET_KEY is not in the backup: keep it alongside, secrets cannot be decrypted without it"
        : `the secret store's key (${LOCAL_SECRET_KEY_FILE} in the data folder) is not in the backup: keep a copy alongside and pass it to restore with --secret-key-file`,
    );
    return 0;
  } finally {
    await started?.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`[backup] failed: ${err instanceof StartupError ? err.message : ((err as Error).stack ?? err)}\n`);
    process.exit(1);
  },
);
