// Prisma client over the pg driver adapter (Prisma's native engines cannot be downloaded offline).
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "./generated/client";
import { requireDatabaseUrl } from "../env";

let client: PrismaClient | undefined;

export function getPrisma(): PrismaClient {
  client ??= new PrismaClient({ adapter: new PrismaPg({ connectionString: requireDatabaseUrl(), max: 5 }) });
  return client;
}

export async function closePrisma(): Promise<void> {
  const c = client;
  client = undefined;
  await c?.$disconnect();
}
