// Prisma CLI configuration. Prisma's native schema engine is downloaded from Prisma's servers, which an offline
// machine cannot reach, so the CLI runs its WASM engine through the pg driver adapter instead (Prisma 6.19:
// `engine: "js"` with `experimental.adapter`; package.json's prisma scripts set PRISMA_*_ENGINE_* to /bin/false so
// nothing tries to download). Migrations are applied by core/db/migrate.ts (`npm start`, `npm run migrate`);
// the CLI is only for authoring them.
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
