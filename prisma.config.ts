// Prisma CLI configuration. Prisma's native schema engine cannot be downloaded on an offline
// machine, so the CLI runs its WASM engine through the pg driver adapter (see STACK.md).
// Migrations are applied by core/db/migrate.ts at start; the CLI is only for authoring them.
import path from "node:path";
import type { PrismaConfig } from "prisma";
import { PrismaPg } from "@prisma/adapter-pg";

export default {
  schema: path.join("prisma", "schema.prisma"),
  migrations: { path: path.join("prisma", "migrations") },
  experimental: { adapter: true },
  engine: "js",
  adapter: async () => new PrismaPg({ connectionString: process.env.DATABASE_URL ?? "" }),
} satisfies PrismaConfig;
