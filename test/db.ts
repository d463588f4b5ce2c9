// Per-test-file database: clones the template, points core/ at it through DATABASE_URL, and
// drops it afterwards. Call useTestDatabase() at the top of a *.db.test.ts file.
import { afterAll, beforeAll, inject } from "vitest";
import { closePool } from "../core/db/pool";
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
    await closePool();
    await dropDatabase(db.adminUrl, db.url);
  });
  return db;
}

/** A pool (max 4) and a pg-boss on the test file's database, for the file's tests; closed after them. */
export function usePoolAndBoss(db: TestDatabase): { readonly pool: pg.Pool; readonly boss: PgBoss } {
  const h = {} as { pool: pg.Pool; boss: PgBoss };
  beforeAll(async () => {
    h.pool = new pg.Pool({ connectionString: db.url, max: 4 });
    h.boss = await startTestBoss(db.url);
  });
  afterAll(async () => {
    await h.boss?.stop({ graceful: false, close: true });
    await h.pool?.end();
  });
  return h;
}
