// Per-test-file database: clones the template, points core/ at it through DATABASE_URL, and
// drops it afterwards. Call useTestDatabase() at the top of a *.db.test.ts file.
import { afterAll, beforeAll, inject } from "vitest";
import { closePool, survivesLostConnections } from "../core/db/pool";
import { stopConsoleBoss } from "../core/queue/console-boss";
import pg from "pg";
import type { PgBoss } from "pg-boss";
import { cloneTemplate, dropDatabase } from "./postgres-for-tests";
import { startTestBoss } from "./run-fixtures";

export interface TestDatabase {
  url: string;
  adminUrl: string;
}

export function useTestDatabase(label = "t"): TestDatabase {
  const db: TestDatabase = { url: "", adminUrl: inject("adminUrl") };
  beforeAll(async () => {
    db.url = await cloneTemplate(db.adminUrl, label);
    process.env.DATABASE_URL = db.url;
  });
  afterAll(async () => {
    // The console's pg-boss client, if a route started one (trigger, re-run, bulk): it holds connections to this database.
    await stopConsoleBoss();
    await closePool();
    await dropDatabase(db.adminUrl, db.url);
  });
  return db;
}

/**
 * A test's own pool. Like the product's pools it survives a connection the server ends (a test's fault
 * injection, the reaper, teardown's DROP DATABASE … FORCE): an idle client's error must not become an
 * uncaught exception that fails the whole run.
 */
export function testPool(url: string, max = 4, extra: pg.PoolConfig = {}): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max, ...extra });
  survivesLostConnections(pool, "test pool");
  return pool;
}

/** A pool (max 4) and a pg-boss on the test file's database, for the file's tests; closed after them. */
export function usePoolAndBoss(db: TestDatabase): { readonly pool: pg.Pool; readonly boss: PgBoss } {
  const h = {} as { pool: pg.Pool; boss: PgBoss };
  beforeAll(async () => {
    h.pool = testPool(db.url);
    h.boss = await startTestBoss(db.url);
  });
  afterAll(async () => {
    await h.boss?.stop({ graceful: false, close: true });
    await h.pool?.end();
  });
  return h;
}
