// `npm run generate:schema`: migrates a throwaway embedded PostgreSQL with prisma/migrations and writes the schema
// they leave (scripts/lib/dump-schema.ts) to prisma/schema.gen.sql. Run it after adding a migration; a test fails
// while the file is stale.
import fs from "node:fs";
import path from "node:path";
import pg from "pg";
import { startTestPostgres, TEMPLATE_DB, withDatabase } from "../test/postgres-for-tests";
import { dumpSchema } from "./lib/dump-schema";

const SCHEMA_FILE = path.resolve(import.meta.dirname, "..", "prisma", "schema.gen.sql");

const server = await startTestPostgres();
try {
  const client = new pg.Client({ connectionString: withDatabase(server.adminUrl, TEMPLATE_DB) });
  await client.connect();
  try {
    const text = await dumpSchema(client);
    if (!fs.existsSync(SCHEMA_FILE) || fs.readFileSync(SCHEMA_FILE, "utf8") !== text) {
      fs.writeFileSync(SCHEMA_FILE, text);
      process.stdout.write(`wrote ${path.relative(process.cwd(), SCHEMA_FILE)}\n`);
    }
  } finally {
    await client.end();
  }
} finally {
  await server.stop();
}
