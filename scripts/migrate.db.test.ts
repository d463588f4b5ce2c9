// `npm run migrate` against a real, empty database: applies every migration once, says which, and a second run
// finds the schema current.
import { spawnSync } from "node:child_process";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import { listMigrations } from "../core/db/migrate";
import { dropDatabase, withDatabase } from "../test/postgres-for-tests";

const adminUrl = inject("adminUrl");
const url = withDatabase(adminUrl, `vigil_migrate_${process.pid}`);

function migrate(databaseUrl: string) {
  const r = spawnSync(process.execPath, ["--import", "tsx", "scripts/migrate.ts"], {
    env: { ...process.env, DATABASE_URL: databaseUrl, VIGIL_LOG_LEVEL: "warn" },
    encoding: "utf8",
    timeout: 60_000,
  });
  return { status: r.status, out: r.stdout + r.stderr };
}

afterAll(() => dropDatabase(adminUrl, url));

describe("npm run migrate", () => {
  it("applies every migration to an empty database and lists them; a second run has nothing to do", async () => {
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${new URL(url).pathname.slice(1)}`);
    await admin.end();

    const first = migrate(url);
    expect(first.status, first.out).toBe(0);
    const names = listMigrations().map((m) => m.name);
    expect(names.length).toBeGreaterThan(0);
    expect(first.out).toContain(`[migrate] applied migrations: ${names.join(", ")}`);

    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      const { rows } = await c.query(
        `SELECT migration_name FROM "_prisma_migrations" WHERE finished_at IS NOT NULL ORDER BY migration_name`,
      );
      expect(rows.map((r) => r.migration_name)).toEqual(names);
      // The schema is really there.
      expect((await c.query("SELECT to_regclass('public.schedules') AS t")).rows[0].t).toBe("schedules");
    } finally {
      await c.end();
    }

    const second = migrate(url);
    expect(second.status, second.out).toBe(0);
    expect(second.out).toContain("[migrate] database schema is current");
  });

  it("fails with one clear line when the database cannot be reached", () => {
    const r = migrate("postgres://nobody:secret@127.0.0.1:1/none");
    expect(r.status).toBe(1);
    expect(r.out).toMatch(/\[migrate\] failed: Cannot reach PostgreSQL at postgres:\/\/nobody:\*\*\*@127\.0\.0\.1:1\/none/);
    expect(r.out).not.toContain("secret");
  });
});
