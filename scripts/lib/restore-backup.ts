// Restores a backup made by physical-backup.ts into the embedded server's data folder, then starts the server on
// it once (replaying the backup's WAL up to its stop point), checks the Vigil database against the manifest's
// counts and the audit chain, and stops it: `npm start` then finds a ready cluster.
import fs from "node:fs";
import path from "node:path";
import pg from "pg";
import { checkDataDir, startEmbeddedPostgres, StartupError } from "./postgres";
import { ensurePostgresUser, placeDataDir } from "./postgres-as-root";
import { extractTarGz } from "./tar";
import { MANIFEST_FILE, type BackupCounts, type BackupManifest } from "./physical-backup";
import { LOCAL_SECRET_KEY_FILE } from "./local-secret-key";
import { verifyAudit } from "../../core/audit/verify-audit";
import { freePort } from "./free-port";

export class RestoreRefused extends Error {}

function chownTree(dir: string, uid: number, gid: number): void {
  fs.chownSync(dir, uid, gid);
  for (const e of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) fs.chownSync(path.join(e.parentPath, e.name), uid, gid);
}

function stamp(): string {
  return new Date().toISOString().replace(/[-:]/g, "").replace(/\..*/, "");
}

export interface RestoreReport {
  dataDir: string;
  manifest: BackupManifest;
  restored: BackupCounts;
  auditOk: boolean;
  auditProblem: string | null;
  movedAside: string | null;
  secretsWithoutKey: number;
}

export async function restoreEmbeddedCluster(opts: {
  file: string;
  /** VIGIL_DATA_DIR as configured (as root it may be placed elsewhere, as `npm start` would). */
  dataDir: string;
  force: boolean;
  secretKeyFile?: string;
  say: (line: string) => void;
}): Promise<RestoreReport> {
  if (!fs.existsSync(opts.file)) throw new RestoreRefused(`There is no backup file ${opts.file}.`);
  const runAs = process.getuid?.() === 0 ? ensurePostgresUser() : undefined;
  const target = runAs ? placeDataDir(path.resolve(opts.dataDir), runAs, opts.say) : path.resolve(opts.dataDir);
  let movedAside: string | null = null;
  const occupied = fs.existsSync(target) && fs.readdirSync(target).length > 0;
  if (occupied) {
    // Refuses a folder a running server uses, force or not (and clears a stale lock).
    if (fs.existsSync(path.join(target, "PG_VERSION"))) {
      try {
        checkDataDir(target);
      } catch (err) {
        if (err instanceof StartupError && /in use/.test(err.message)) throw new RestoreRefused(`Not restoring: ${err.message}`);
      }
    }
    if (!opts.force) {
      throw new RestoreRefused(
        `Not restoring into ${target}: it already holds a database. Restore into a fresh folder (VIGIL_DATA_DIR=/path/to/new/folder npm run restore -- ${opts.file}), or add --force to replace it (the current folder is kept beside it as ${path.basename(target)}.before-restore-<time>).`,
      );
    }
    movedAside = `${target}.before-restore-${stamp()}`;
    fs.renameSync(target, movedAside);
    opts.say(`moved the current data folder aside to ${movedAside}`);
  }
  const staging = `${target}.restoring-${process.pid}`;
  fs.rmSync(staging, { recursive: true, force: true });
  fs.mkdirSync(staging, { recursive: true, mode: 0o700 });
  let manifest: BackupManifest;
  try {
    await extractTarGz(opts.file, staging);
    const manifestPath = path.join(staging, MANIFEST_FILE);
    if (!fs.existsSync(manifestPath) || !fs.existsSync(path.join(staging, "backup_label"))) {
      throw new RestoreRefused(`${opts.file} is not a backup of Vigil's embedded database (no ${MANIFEST_FILE} or backup_label in it).`);
    }
    manifest = JSON.parse(fs.readFileSync(manifestPath, "utf8")) as BackupManifest;
    fs.rmSync(manifestPath);
    if (opts.secretKeyFile) {
      fs.copyFileSync(opts.secretKeyFile, path.join(staging, LOCAL_SECRET_KEY_FILE));
      fs.chmodSync(path.join(staging, LOCAL_SECRET_KEY_FILE), 0o600);
    }
    fs.chmodSync(staging, 0o700);
    if (runAs) chownTree(staging, runAs.uid, runAs.gid);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.renameSync(staging, target);
  } catch (err) {
    fs.rmSync(staging, { recursive: true, force: true });
    if (movedAside) {
      fs.renameSync(movedAside, target);
      opts.say(`put the previous data folder back in ${target}`);
    }
    throw err;
  }
  opts.say(`extracted the backup of ${manifest.finishedAt} into ${target}; starting it once to replay its write-ahead log…`);

  const server = await startEmbeddedPostgres({ dataDir: opts.dataDir, port: await freePort(), say: opts.say });
  try {
    const client = new pg.Client({ connectionString: server.url(manifest.database) });
    await client.connect();
    try {
      const { rows } = await client.query(
        `SELECT (SELECT count(*) FROM schedules) AS schedules, (SELECT count(*) FROM runs) AS runs,
                (SELECT count(*) FROM audit_events) AS audit_events,
                (SELECT id FROM audit_events ORDER BY id DESC LIMIT 1) AS head_seq,
                (SELECT hash FROM audit_events ORDER BY id DESC LIMIT 1) AS head_hash,
                (SELECT count(*) FROM secrets) AS secrets`,
      );
      const r = rows[0];
      const restored: BackupCounts = {
        schedules: Number(r.schedules),
        runs: Number(r.runs),
        auditEvents: Number(r.audit_events),
        auditHeadSeq: r.head_seq === null ? null : Number(r.head_seq),
        auditHeadHash: r.head_hash,
      };
      const audit = await verifyAudit(client);
      const hasKey = Boolean(process.env.VIGIL_SECRET_KEY) || fs.existsSync(path.join(target, LOCAL_SECRET_KEY_FILE));
      return {
        dataDir: target,
        manifest,
        restored,
        auditOk: audit.ok,
        auditProblem: audit.ok ? null : `row ${audit.brokenId}: ${audit.problem}`,
        movedAside,
        secretsWithoutKey: hasKey ? 0 : Number(r.secrets),
      };
    } finally {
      await client.end();
    }
  } finally {
    await server.stop();
  }
}
