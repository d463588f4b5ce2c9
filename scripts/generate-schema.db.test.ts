// prisma/schema.gen.sql is the schema the migrations leave: regenerated from a freshly migrated database, it is
// unchanged. It fails when a migration was added without `npm run generate:schema`, or the file was edited by hand.
import fs from "node:fs";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { cloneTemplate, dropDatabase } from "../test/postgres-for-tests";
import { dumpSchema } from "./lib/dump-schema";

const adminUrl = inject("adminUrl");
let url: string;
let client: pg.Client;

beforeAll(async () => {
  url = await cloneTemplate(adminUrl, "schema_gen");
  client = new pg.Client({ connectionString: url });
  await client.connect();
});

afterAll(async () => {
  await client?.end();
  if (url) await dropDatabase(adminUrl, url);
});

describe("prisma/schema.gen.sql", () => {
  it("is what the migrations leave (run `npm run generate:schema` after adding a migration)", async () => {
    const committed = fs.readFileSync(path.resolve(import.meta.dirname, "..", "prisma", "schema.gen.sql"), "utf8");
    const current = await dumpSchema(client);
    // Compared line by line first so a failure names the first line that differs rather than two huge strings.
    const a = committed.split("\n");
    const b = current.split("\n");
    const first = b.findIndex((l, i) => l !== a[i]);
    expect(first === -1 ? null : { line: first + 1, committed: a[first], migrations: b[first] }).toBeNull();
    expect(current).toBe(committed);
  });

  it("holds the current body of the engine's functions and every index on runs", async () => {
    const text = await dumpSchema(client);
    expect(text).toContain("CREATE OR REPLACE FUNCTION public.vigil_claim_free_runs(");
    const { rows } = await client.query<{ name: string }>(
      `SELECT indexrelid::regclass::text AS name FROM pg_index WHERE indrelid = 'runs'::regclass`,
    );
    expect(rows.length).toBeGreaterThan(5);
    for (const { name } of rows) expect(text).toMatch(new RegExp(`CREATE (UNIQUE )?INDEX ${name} ON public\\.runs `));
  });
});
