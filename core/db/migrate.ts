// Applies prisma/migrations in order, recording them in Prisma's own _prisma_migrations table so
// `prisma migrate status` agrees. Prisma's CLI needs ~12 s per run here (a timer in its WASM
// engine); applying the same SQL directly takes milliseconds, at every start and per test database.
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import pg from "pg";

const LOCK_KEY = 746346;

/** prisma/migrations of the checkout every Vigil process runs from (its working directory). */
export function migrationsDir(): string {
  return path.join(/*turbopackIgnore: true*/ process.cwd(), "prisma", "migrations");
}

export function listMigrations(dir = migrationsDir()): { name: string; sql: string; checksum: string }[] {
  return fs
    .readdirSync(/*turbopackIgnore: true*/ dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && fs.existsSync(path.join(dir, d.name, "migration.sql")))
    .map((d) => d.name)
    .sort()
    .map((name) => {
      const sql = fs.readFileSync(path.join(dir, name, "migration.sql"), "utf8");
      return { name, sql, checksum: crypto.createHash("sha256").update(sql).digest("hex") };
    });
}

const CREATE_TABLE = `
CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id" VARCHAR(36) PRIMARY KEY NOT NULL,
  "checksum" VARCHAR(64) NOT NULL,
  "finished_at" TIMESTAMPTZ,
  "migration_name" VARCHAR(255) NOT NULL,
  "logs" TEXT,
  "rolled_back_at" TIMESTAMPTZ,
  "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
  "applied_steps_count" INTEGER NOT NULL DEFAULT 0
)`;

export interface MigrateOptions {
  /** Apply only migrations whose name sorts before this (the upgrade test builds "the previous release"). */
  before?: string;
  /** Where a migration's NOTICEs go (progress of long data moves); default: stdout. */
  onNotice?: (message: string) => void;
}

/** Applies pending migrations; safe when several processes start at once (advisory lock). */
export async function migrate(connectionString: string, opts: MigrateOptions = {}): Promise<string[]> {
  const client = new pg.Client({ connectionString, application_name: "vigil-migrate" });
  const onNotice = opts.onNotice ?? ((m: string) => console.log(`[migrate] ${m}`));
  client.on("notice", (n) => {
    // "… already exists, skipping" from IF NOT EXISTS is noise; what a migration RAISEs is progress worth printing.
    if (n.message && !/already exists, skipping$/.test(n.message)) onNotice(n.message);
  });
  await client.connect();
  const applied: string[] = [];
  try {
    await client.query("SELECT pg_advisory_lock($1)", [LOCK_KEY]);
    await client.query(CREATE_TABLE);
    const done = await client.query<{ migration_name: string; checksum: string }>(
      `SELECT migration_name, checksum FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
    );
    const byName = new Map(done.rows.map((r) => [r.migration_name, r.checksum]));
    for (const m of listMigrations()) {
      if (opts.before !== undefined && m.name >= opts.before) break;
      const seen = byName.get(m.name);
      if (seen !== undefined) {
        if (seen !== m.checksum) {
          throw new Error(`Migration ${m.name} was changed after it was applied: restore it and add a new migration instead.`);
        }
        continue;
      }
      await client.query("BEGIN");
      try {
        await client.query(m.sql);
        await client.query(
          `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, applied_steps_count)
           VALUES ($1, $2, now(), $3, 1)`,
          [crypto.randomUUID(), m.checksum, m.name],
        );
        await client.query("COMMIT");
        applied.push(m.name);
      } catch (err) {
        await client.query("ROLLBACK");
        throw new Error(`Migration ${m.name} failed: ${(err as Error).message}`, { cause: err });
      }
    }
  } finally {
    await client.query("SELECT pg_advisory_unlock($1)", [LOCK_KEY]).catch(() => undefined);
    await client.end();
  }
  return applied;
}

/** Names of migrations in the repository that the database has not applied (readiness check). */
export async function pendingMigrations(db: Pick<pg.Pool, "query">): Promise<string[]> {
  const { rows } = await db
    .query<{ migration_name: string }>(`SELECT migration_name FROM "_prisma_migrations" WHERE finished_at IS NOT NULL`)
    .catch(() => ({ rows: [] as { migration_name: string }[] }));
  const done = new Set(rows.map((r) => r.migration_name));
  return listMigrations()
    .map((m) => m.name)
    .filter((n) => !done.has(n));
}
