// Per-test-file database: clones the template, points core/ at it through DATABASE_URL, and
// drops it afterwards. Call useTestDatabase() at the top of a *.db.test.ts file.
import { afterAll, beforeAll, inject } from "vitest";
import { closePool } from "../core/db/pool";
import { cloneTemplate, dropDatabase } from "./postgres-for-tests";

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
