// npm run backup / npm run restore with DATABASE_URL: the path that runs the standard pg_dump and
// pg_restore against the operator's own server. The machine's client programs are PostgreSQL 15's, which refuse the
// embedded 18, so the server here is the machine's packaged PostgreSQL of pg_dump's own major version (CI installs
// it). Backup while Vigil's schema holds schedules, runs and a hash-chained audit trail; a non-empty database is
// refused; a restore into an empty one, and one with --force over a changed one, give the same rows and an intact
// audit chain (the chain's trigger is created after the data is loaded, so the restore does not re-chain rows).
import { execFile, execFileSync } from "node:child_process";
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

const run = promisify(execFile);

/** The packaged server whose major version is pg_dump's (pg_dump refuses a newer server). */
function packagedServer(): string {
  const out = execFileSync("pg_dump", ["--version"], { encoding: "utf8" });
  const major = /(\d+)\.\d+/.exec(out)?.[1];
  const root = `/usr/lib/postgresql/${major}`;
  if (!fs.existsSync(path.join(root, "bin", "postgres")))
    throw new Error(`no PostgreSQL ${major} server in ${root} to match ${out.trim()}: install Debian's postgresql-${major} (.ci/run does)`);
  return root;
}

function cli(script: string, args: string[], databaseUrl: string) {
  return run(process.execPath, ["--import", "tsx", `scripts/${script}.ts`, ...args], {
    env: { ...process.env, DATABASE_URL: databaseUrl, VIGIL_LOG_FORMAT: "json" },
    timeout: 120_000,
  }).then(
    (r) => ({ code: 0, out: r.stdout + r.stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, out: e.stdout + e.stderr }),
  );
}

let dir: string;
let server: RunningPostgres;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "vigil-backup-external-"));
  fs.chmodSync(dir, 0o755); // as root the server runs as 'postgres', which must reach its cluster here
  server = await startEmbeddedPostgres({
    programs: packagedServer(),
    dataDir: path.join(dir, "cluster"),
    port: await freePort(),
    durable: false,
    say: () => {},
  });
  for (const db of ["source", "empty", "changed"]) await ensureDatabase(server.url("postgres"), db);
}, 120_000);

afterAll(async () => {
  await server?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function pgQuery(url: string, sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  await c.query(sql).finally(() => c.end());
}

/** What a restore must bring back exactly: schedules, runs, their events and the audit trail, row for row. */
async function snapshot(url: string) {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const rows = async (sql: string) => (await c.query(sql)).rows;
    return {
      schedules: await rows(`SELECT id, name, handler, trigger, payload, revision FROM schedules ORDER BY id`),
      runs: await rows(`SELECT id, schedule_id, planned_at, state, idempotency_key FROM runs ORDER BY id`),
      events: await rows(`SELECT run_id, type, count(*)::int AS n FROM run_events GROUP BY 1, 2 ORDER BY 1, 2`),
      audit: await rows(`SELECT id, action, target_id, hash FROM audit_events ORDER BY id`),
      jobs: await rows(`SELECT id FROM pgboss.job`).catch(() => null),
    };
  } finally {
    await c.end();
  }
}

describe("backup and restore through DATABASE_URL (pg_dump / pg_restore)", () => {
  it("restores a dump into an empty database and, with --force, over a changed one; a non-empty one is refused", async () => {
    const source = server.url("source");
    await migrate(source);
    // Schedules through the product (each with its audit row); runs and events as the engine leaves them.
    process.env.DATABASE_URL = source;
    const c = new pg.Client({ connectionString: source });
    await c.connect();
    try {
      for (let i = 0; i < 3; i++) {
        const s = await createSchedule(
          { name: `external-${i}`, handler: "demo.noop", payload: {}, trigger: { kind: "interval", everySeconds: 3600 } },
          systemActor("backup-test"),
        );
        for (let k = 0; k < 5; k++) {
          const {
            rows: [r],
          } = await c.query<{ id: string }>(
            `INSERT INTO runs (schedule_id, planned_at, due_at, state, idempotency_key, handler, timeout_seconds, grace_seconds)
             VALUES ($1, now() - make_interval(mins => $2), now() - make_interval(mins => $2), 'succeeded', gen_random_uuid()::text,
                     'demo.noop', 60, 5)
             RETURNING id`,
            [s.id, k + 1],
          );
          await c.query(`INSERT INTO run_events (run_id, type) VALUES ($1, 'planned'), ($1, 'succeeded')`, [r!.id]);
        }
      }
      // pg-boss keeps its queue in its own schema (created by a worker's start): a dump carries it too.
      await c.query(
        `CREATE SCHEMA pgboss; CREATE TABLE pgboss.job (id uuid PRIMARY KEY); INSERT INTO pgboss.job VALUES (gen_random_uuid())`,
      );
    } finally {
      await c.end();
      await closePool();
    }
    const before = await snapshot(source);
    expect(before.schedules).toHaveLength(3);
    expect(before.runs).toHaveLength(15);
    expect(before.audit.length).toBeGreaterThanOrEqual(3);

    const dump = path.join(dir, "vigil.dump");
    const backup = await cli("backup", ["--out", dump], source);
    expect(backup.code, backup.out).toBe(0);
    expect(fs.statSync(dump).size).toBeGreaterThan(1000);

    // A database that already has tables is refused without --force, and left as it was.
    await migrate(server.url("changed"));
    await pgQuery(
      server.url("changed"),
      `INSERT INTO schedules (name, handler, trigger) VALUES ('only-here', 'demo.noop', '{"kind":"interval","everySeconds":60}')`,
    );
    const refused = await cli("restore", [dump], server.url("changed"));
    expect(refused.code, refused.out).not.toBe(0);
    expect(refused.out).toContain("the database in DATABASE_URL is not empty");
    expect((await snapshot(server.url("changed"))).schedules.map((r) => r.name)).toEqual(["only-here"]);

    // Into an empty database: the same rows, and the audit chain verifies.
    const restored = await cli("restore", [dump], server.url("empty"));
    expect(restored.code, restored.out).toBe(0);
    expect(restored.out).toContain(`audit chain intact (${before.audit.length} rows)`);
    expect(await snapshot(server.url("empty"))).toEqual(before);
    const emptyPool = new pg.Pool({ connectionString: server.url("empty"), max: 1 });
    try {
      expect(await verifyAudit(emptyPool)).toMatchObject({ ok: true, checked: before.audit.length });
    } finally {
      await emptyPool.end();
    }

    // With --force over a database whose rows differ: replaced by the dump's.
    const forced = await cli("restore", [dump, "--force"], server.url("changed"));
    expect(forced.code, forced.out).toBe(0);
    expect(forced.out).toContain("--force: dropping the schemas the backup replaces (public, pgboss) before restoring");
    expect(await snapshot(server.url("changed"))).toEqual(before);
  }, 240_000);
});
