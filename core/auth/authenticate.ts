// Resolves the caller of an API request from its session cookie or bearer token.
import crypto from "node:crypto";
import type { Queryable } from "../db/pool";
import type { Actor, Role } from "./roles";
import type { TeamRoles } from "../teams/team-roles";
import { TOKEN_OWNER_ACTIVE_SQL } from "./api-token-record";

export const SESSION_COOKIE = "vigil_session";

export function sha256Hex(value: string): string {
  return crypto.createHash("sha256").update(value).digest("hex");
}

export interface Credentials {
  sessionToken?: string | null;
  bearerToken?: string | null;
  ip?: string | null;
  userAgent?: string | null;
}

/**
 * "Last used" / "last seen" are written at most once a minute per token or session: a request that writes
 * nothing commits without waiting for a disk flush, which every API call paid before (issue 16: the trigger's
 * latency through the API). The Admin page shows these times to the minute anyway.
 */
const TOUCH_EVERY_SECONDS = 60;
const STALE_SQL = (col: string) => `(${col} IS NULL OR ${col} < clock_timestamp() - make_interval(secs => ${TOUCH_EVERY_SECONDS}))`;

/** A user's team roles as one JSON object { team id: role }, read in the statement that authenticates. */
const TEAMS_OF = (userId: string) =>
  `coalesce((SELECT jsonb_object_agg(m.team_id, m.role) FROM team_members m WHERE m.user_id = ${userId}), '{}'::jsonb)`;

function pick(teams: TeamRoles, teamId: string): TeamRoles {
  return teams[teamId] ? { [teamId]: teams[teamId] } : {};
}

/** Returns the actor, or null when the credentials are missing, unknown, expired or revoked. */
export async function authenticate(db: Queryable, c: Credentials): Promise<Actor | null> {
  if (c.bearerToken) {
    const { rows } = await db.query<{
      id: string;
      name: string;
      role: Role;
      programs: boolean;
      teams: TeamRoles;
      team_id: string | null;
      scopes: string[];
    }>(
      // Expired, or its creator disabled or no longer holding the token's role: the token is refused,
      // checked on every call so a change to the account takes effect at once.
      `WITH t AS (
         SELECT t.id, t.name, t.role, t.last_used_at, t.team_id, t.scopes,
                coalesce((SELECT o.can_run_programs FROM users o WHERE o.id = t.created_by), false) AS programs,
                ${TEAMS_OF("t.created_by")} AS teams
           FROM api_tokens t
          WHERE t.token_hash = $1 AND t.revoked_at IS NULL AND t.expires_at > clock_timestamp() AND ${TOKEN_OWNER_ACTIVE_SQL}
       ),
       touched AS (
         UPDATE api_tokens x SET last_used_at = clock_timestamp() FROM t
          WHERE x.id = t.id AND ${STALE_SQL("t.last_used_at")}
       )
       SELECT id, name, role, programs, teams, team_id, scopes FROM t`,
      [sha256Hex(c.bearerToken)],
    );
    const t = rows[0];
    return t
      ? {
          type: "token",
          id: t.id,
          label: `token:${t.name}`,
          role: t.role,
          mayRunPrograms: t.programs,
          teams: t.team_id ? pick(t.teams, t.team_id) : t.teams,
          tokenTeamId: t.team_id,
          scopes: t.scopes,
          ip: c.ip,
          userAgent: c.userAgent,
        }
      : null;
  }
  if (c.sessionToken) {
    const { rows } = await db.query<{ id: string; email: string; role: Role; programs: boolean; teams: TeamRoles }>(
      `WITH s AS (
         SELECT s.id AS session_id, s.last_seen_at, u.id, u.email, u.role, u.can_run_programs AS programs,
                ${TEAMS_OF("u.id")} AS teams FROM sessions s JOIN users u ON u.id = s.user_id
          WHERE s.id = $1 AND s.expires_at > clock_timestamp() AND u.disabled_at IS NULL
       ),
       touched AS (
         UPDATE sessions x SET last_seen_at = clock_timestamp() FROM s
          WHERE x.id = s.session_id AND ${STALE_SQL("s.last_seen_at")}
       )
       SELECT id, email, role, programs, teams FROM s`,
      [sha256Hex(c.sessionToken)],
    );
    const u = rows[0];
    return u
      ? {
          type: "user",
          id: u.id,
          label: u.email,
          role: u.role,
          mayRunPrograms: u.programs,
          teams: u.teams,
          ip: c.ip,
          userAgent: c.userAgent,
        }
      : null;
  }
  return null;
}
