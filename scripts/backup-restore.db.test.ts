// npm run backup / npm run restore on the embedded database, under load: a real worker fires
// four schedules every second while the backup is taken; the backup is restored into a fresh folder, and the
// restored database has exactly the schedules, runs and audit rows the backup's stop point had, an intact audit
// chain, and starts as `npm start` would start it. Restoring over it again is refused without --force.
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrate } from "../core/db/migrate";
import { closePool } from "../core/db/pool";
import { createSchedule } from "../core/schedules/create-schedule";
import { systemActor } from "../core/auth/roles";
import { verifyAudit } from "../core/audit/verify-audit";
import { ensureDatabase, startEmbeddedPostgres, type RunningPostgres } from "./lib/postgres";
import { freePort } from "../test/postgres-for-tests";
import { startWorker, type TestWorker } from "../test/worker-process";
import { waitFor } from "../test/wait-for";

const run = promisify(execFile);
let dir: string;
let live: RunningPostgres;
let livePort: number;
let url: string;

function cli(script: string, args: string[], env: Record<string, string>) {
  return run(process.execPath, ["--import", "tsx", `scripts/${script}.ts`, ...args], {
    env: { ...process.env, DATABASE_URL: "", VIGIL_LOG_FORMAT: "json", ...env },
    timeout: 120_000,
  }).then(
    (r) => ({ code: 0, out: r.stdout + r.stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, out: e.stdout + e.stderr }),
  );
}

async function count(client: pg.Client | pg.Pool, table: string): Promise<number> {
  return Number((await client.query(`SELECT count(*) FROM ${table}`)).rows[0].count);
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "vigil-backup-"));
  // As root the server runs as 'postgres', which must reach the clusters kept here.
  fs.chmodSync(dir, 0o755);
  livePort = await freePort();
  live = await startEmbeddedPostgres({ dataDir: path.join(dir, "live"), port: livePort, durable: false, say: () => {} });
  await ensureDatabase(live.url("postgres"), "vigil");
  url = live.url("vigil");
  await migrate(url);
  process.env.DATABASE_URL = url;
});

afterAll(async () => {
  await closePool();
  await live?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("backup and restore of the embedded database", () => {
  it("a backup taken while a worker writes runs restores into a fresh folder with the snapshot's schedules, runs and audit chain", async () => {
    for (let i = 0; i < 4; i++) {
      await createSchedule(
        { name: `load-${i}`, handler: "demo.noop", payload: {}, trigger: { kind: "interval", everySeconds: 1 } },
        systemActor("backup-test"),
      );
    }
    const pool = new pg.Pool({ connectionString: url, max: 2 });
    let worker: TestWorker | undefined;
    let restoredServer: RunningPostgres | undefined;
    try {
      worker = startWorker(url);
      // Runs are planned ahead (rows appear in batches) and then updated as they run: the load is the updates.
      const succeeded = async (db: pg.Client | pg.Pool) => count(db, "runs WHERE state = 'succeeded'");
      await waitFor("the worker to finish runs", async () => (await succeeded(pool)) >= 8, { timeoutMs: 60_000 });
      const before = { runs: await count(pool, "runs"), succeeded: await succeeded(pool) };

      const out = path.join(dir, "vigil.tar.gz");
      const backup = await cli("backup", ["--out", out], { VIGIL_PG_PORT: String(livePort), VIGIL_DATA_DIR: path.join(dir, "live") });
      expect(backup.out).toContain("backing up the embedded PostgreSQL of the running Vigil");
      expect(backup.code).toBe(0);
      const m = /— (\d+) schedules, (\d+) runs, (\d+) audit rows/.exec(backup.out);
      expect(m, backup.out).not.toBeNull();
      const snapshot = { schedules: Number(m![1]), runs: Number(m![2]), audit: Number(m![3]) };
      expect(snapshot.schedules).toBe(4);
      expect(snapshot.runs).toBeGreaterThanOrEqual(before.runs);

      const restoredDir = path.join(dir, "restored");
      const restore = await cli("restore", [out], { VIGIL_DATA_DIR: restoredDir, VIGIL_PG_PORT: String(await freePort()) });
      expect(restore.out).toContain("the counts match the backup's");
      expect(restore.out).toContain("audit chain intact");
      expect(restore.code).toBe(0);

      // Started as `npm start` starts it: same folder, the restored cluster as it was at the backup's stop point.
      restoredServer = await startEmbeddedPostgres({ dataDir: restoredDir, port: await freePort(), say: () => {} });
      const restored = new pg.Client({ connectionString: restoredServer.url("vigil") });
      await restored.connect();
      try {
        const schedules = (db: pg.Client | pg.Pool) => db.query(`SELECT id, name, trigger, revision FROM schedules ORDER BY name`);
        expect((await schedules(restored)).rows).toEqual((await schedules(pool)).rows);
        expect(await count(restored, "runs")).toBe(snapshot.runs);
        // The snapshot is of a moment during the load: later than the count before, and the worker went on after it.
        const restoredSucceeded = await succeeded(restored);
        expect(restoredSucceeded).toBeGreaterThanOrEqual(before.succeeded);
        await waitFor("runs finished after the backup's stop point", async () => (await succeeded(pool)) > restoredSucceeded, {
          timeoutMs: 30_000,
        });
        expect(await count(restored, "audit_events")).toBe(snapshot.audit);
        // Every restored run is one the live database has, for the same schedule and occurrence.
        const { rows: restoredRuns } = await restored.query(`SELECT id, schedule_id, planned_at FROM runs ORDER BY id`);
        const { rows: liveRuns } = await pool.query(`SELECT id, schedule_id, planned_at FROM runs WHERE id = ANY($1::uuid[]) ORDER BY id`, [
          restoredRuns.map((r) => r.id),
        ]);
        expect(liveRuns).toEqual(restoredRuns);
        const audit = await verifyAudit(restored);
        expect(audit).toMatchObject({ ok: true, checked: snapshot.audit });
      } finally {
        await restored.end();
        await restoredServer.stop();
        restoredServer = undefined;
      }

      // A folder that holds a database is not overwritten without --force; with it, the old one is kept aside.
      const again = await cli("restore", [out], { VIGIL_DATA_DIR: restoredDir });
      expect(again.code).toBe(2);
      expect(again.out).toContain(`Not restoring into ${restoredDir}: it already holds a database`);
      const forced = await cli("restore", [out, "--force"], { VIGIL_DATA_DIR: restoredDir, VIGIL_PG_PORT: String(await freePort()) });
      expect(forced.code, forced.out).toBe(0);
      expect(fs.readdirSync(dir).some((f) => f.startsWith("restored.before-restore-"))).toBe(true);
    } finally {
      await restoredServer?.stop();
      await worker?.stop();
      await pool.end();
    }
    // Three CLI runs (each starts tsx, one a server) and two cluster starts: ~45 s idle, twice that on a loaded machine.
  }, 240_000);

  it("a backup without --out goes to backups/ in the checkout, a private folder that git ignores", async () => {
    const repo = path.resolve(import.meta.dirname, "..");
    const backup = await cli("backup", [], { VIGIL_PG_PORT: String(livePort), VIGIL_DATA_DIR: path.join(dir, "live") });
    const m = /: (\S+\.tar\.gz) \(\d+ bytes\)/.exec(backup.out);
    expect(m, backup.out).not.toBeNull();
    const out = m![1]!;
    try {
      expect(backup.code).toBe(0);
      expect(path.dirname(out)).toBe(path.join(repo, "backups"));
      expect(fs.statSync(path.dirname(out)).mode & 0o777).toBe(0o700);
      // `git check-ignore` exits 0 when the path is ignored, 1 when git would offer to commit it.
      const ignored = await run("git", ["check-ignore", "-q", path.relative(repo, out)], { cwd: repo }).then(
        () => true,
        () => false,
      );
      expect(ignored).toBe(true);
    } finally {
      fs.rmSync(out, { force: true });
    }
  }, 120_000);
});
