// Test credentials: an API token with a role, inserted directly, for calling routes in db tests.
import crypto from "node:crypto";
import pg from "pg";
import { sha256Hex } from "../core/auth/authenticate";
import type { Role } from "../core/auth/roles";

export async function createTestToken(databaseUrl: string, role: Role): Promise<string> {
  const token = `vgl_test_${crypto.randomBytes(16).toString("hex")}`;
  const c = new pg.Client({ connectionString: databaseUrl });
  await c.connect();
  try {
    await c.query(`INSERT INTO api_tokens (name, token_hash, prefix, role) VALUES ($1, $2, $3, $4)`, [
      `test-${role}`,
      sha256Hex(token),
      token.slice(0, 12),
      role,
    ]);
  } finally {
    await c.end();
  }
  return token;
}
