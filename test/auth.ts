// Test credentials: an API token with a role, inserted directly, for calling routes in db tests.
import crypto from "node:crypto";
import pg from "pg";
import { sha256Hex } from "../core/auth/authenticate";
import type { Role } from "../core/auth/roles";
import { createSession } from "../core/auth/sessions";
import { addTeamMember } from "../core/teams/team-members";
import { DEFAULT_TEAM_ID } from "../core/teams/team-roles";

/** `scopes`: what it may do (empty: all its role allows); `teamId`: the one team it acts for; `createdBy`: a user id. */
export async function createTestToken(
  databaseUrl: string,
  role: Role,
  opts: { scopes?: readonly string[]; teamId?: string | null; createdBy?: string | null } = {},
): Promise<string> {
  const token = `vgl_test_${crypto.randomBytes(16).toString("hex")}`;
  const c = new pg.Client({ connectionString: databaseUrl });
  await c.connect();
  try {
    await c.query(
      `INSERT INTO api_tokens (name, token_hash, prefix, role, scopes, team_id, created_by) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [`test-${role}`, sha256Hex(token), token.slice(0, 12), role, opts.scopes ?? [], opts.teamId ?? null, opts.createdBy ?? null],
    );
  } finally {
    await c.end();
  }
  return token;
}

/** A console user with a live session: the cookie value a browser would hold. */
export async function createTestSession(
  databaseUrl: string,
  role: Role,
  email = `${role}-${crypto.randomUUID()}@vigil.test`,
): Promise<{ cookie: string; userId: string; email: string }> {
  const c = new pg.Client({ connectionString: databaseUrl });
  await c.connect();
  try {
    // Not a real password hash: this user signs in only through the session made here.
    const { rows } = await c.query(`INSERT INTO users (email, password_hash, role) VALUES ($1, 'test-no-password', $2) RETURNING id`, [
      email,
      role,
    ]);
    // A viewer or operator holds that role in the default team (an admin acts in every team by its global role).
    if (role !== "admin") await addTeamMember(c, DEFAULT_TEAM_ID, rows[0].id, role);
    const { token } = await createSession(c, rows[0].id, { ip: "127.0.0.1", userAgent: "vitest" });
    return { cookie: token, userId: rows[0].id, email };
  } finally {
    await c.end();
  }
}
