// The public shape of an API token: never its hash; the secret is shown once, at creation.
import type { Role } from "./roles";

export interface ApiTokenRecord {
  id: string;
  name: string;
  prefix: string;
  role: Role;
  /** The one team it acts for, or null: every team of its creator. */
  team: { id: string; name: string } | null;
  /** The actions it may take (core/auth/token-scopes.ts); empty: everything its role allows. */
  scopes: string[];
  createdBy: string | null;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  expiresAt: Date;
  /** Whether it authenticates now, and if not, why: revoked, expired, or its creator is disabled or lost the role. */
  state: "active" | "revoked" | "expired" | "owner_inactive";
}

// The role ranks again in SQL (roles.ts holds the same order) so authenticate() can check a token's
// creator in the one statement that finds the token.
export const ROLE_RANK_SQL = (col: string) => `CASE ${col} WHEN 'viewer' THEN 1 WHEN 'operator' THEN 2 WHEN 'admin' THEN 3 ELSE 0 END`;

/** True when the token's creator (if any is recorded) is active and still holds at least the token's role. */
export const TOKEN_OWNER_ACTIVE_SQL = `(t.created_by IS NULL OR EXISTS (
  SELECT 1 FROM users o WHERE o.id = t.created_by AND o.disabled_at IS NULL AND ${ROLE_RANK_SQL("o.role")} >= ${ROLE_RANK_SQL("t.role")}))`;

export const TOKEN_COLUMNS = `t.id, t.name, t.prefix, t.role, t.team_id, t.scopes, t.created_at,
  (SELECT tm.name FROM teams tm WHERE tm.id = t.team_id) AS team_name, t.last_used_at, t.revoked_at, t.expires_at,
  (SELECT email FROM users u WHERE u.id = t.created_by) AS created_by,
  CASE WHEN t.revoked_at IS NOT NULL THEN 'revoked'
       WHEN t.expires_at <= clock_timestamp() THEN 'expired'
       WHEN NOT ${TOKEN_OWNER_ACTIVE_SQL} THEN 'owner_inactive'
       ELSE 'active' END AS state`;

/** A row of TOKEN_COLUMNS. */
export interface ApiTokenRow {
  id: string;
  name: string;
  prefix: string;
  role: Role;
  team_id: string | null;
  team_name: string | null;
  scopes: string[];
  created_by: string | null;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
  expires_at: Date;
  state: ApiTokenRecord["state"];
}

export function toApiTokenRecord(r: ApiTokenRow): ApiTokenRecord {
  return {
    id: r.id,
    name: r.name,
    prefix: r.prefix,
    role: r.role,
    team: r.team_id ? { id: r.team_id, name: r.team_name ?? "" } : null,
    scopes: r.scopes ?? [],
    createdBy: r.created_by ?? null,
    createdAt: r.created_at,
    lastUsedAt: r.last_used_at ?? null,
    revokedAt: r.revoked_at ?? null,
    expiresAt: r.expires_at,
    state: r.state,
  };
}
