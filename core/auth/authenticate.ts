// Resolves the caller of an API request from its session cookie or bearer token.
import crypto from "node:crypto";
import type { Queryable } from "../db/pool";
import type { Actor, Role } from "./roles";
import { DEFAULT_TEAM_ID, type TeamRoles } from "../teams/team-roles";
import { capTeamRoles, routeRoleOf } from "../teams/team-access";
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
 * nothing commits without waiting for a disk flush, which every API call paid before (the trigger's
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

/** A user's route-level role: the global admin's, else the highest its teams give (core/teams/team-access.ts). */
function userRole(role: Role, teams: TeamRoles): Role {
  return role === "admin" ? "admin" : routeRoleOf(teams);
}

const ROLE_ORDER: readonly Role[] = ["viewer", "operator", "admin"];
const lower = (a: Role, b: Role): Role => (ROLE_ORDER.indexOf(a) <= ROLE_ORDER.indexOf(b) ? a : b);

/**
 * A token's roles: an admin token of the global admin is the global admin (bound to its team when it has one); a
 * lower token of the global admin holds its role in every team (or its one team); a token without a recorded
 * creator (made before accounts recorded one) acts with its role in its team, else the default team; any other acts
 * with its creator's team roles, capped at the token's role and narrowed to the token's team.
 */
function tokenRoles(t: { role: Role; creator_role: Role | null; teams: TeamRoles; team_id: string | null }): {
  role: Role;
  teams: TeamRoles;
} {
  if (t.role === "admin") return { role: "admin", teams: {} };
  if (t.creator_role === null) return { role: t.role, teams: { [t.team_id ?? DEFAULT_TEAM_ID]: t.role } };
  const teams = capTeamRoles(t.team_id ? pick(t.teams, t.team_id) : t.teams, t.role);
  return { role: t.creator_role === "admin" ? t.role : lower(t.role, routeRoleOf(teams)), teams };
}

/** Returns the actor, or null when the credentials are missing, unknown, expired or revoked. */
export async function authenticate(db: Queryable, c: Credentials): Promise<Actor | null> {
  if (c.bearerToken) {
    const { rows } = await db.query<{
      id: string;
      name: string;
      role: Role;
      programs: boolean;
      creator_role: Role | null;
      teams: TeamRoles;
      team_id: string | null;
      scopes: string[];
    }>(
      // Expired, or its creator disabled or no longer holding the token's role: the token is refused,
      // checked on every call so a change to the account takes effect at once.
      `WITH t AS (
         SELECT t.id, t.name, t.role, t.last_used_at, t.team_id, t.scopes,
                coalesce((SELECT o.can_run_programs FROM users o WHERE o.id = t.created_by), false) AS programs,
                (SELECT o.role FROM users o WHERE o.id = t.created_by) AS creator_role,
                CASE WHEN (SELECT o.role FROM users o WHERE o.id = t.created_by) = 'admin'
                     THEN coalesce((SELECT jsonb_object_agg(x.id, t.role) FROM teams x), '{}'::jsonb)
                     ELSE ${TEAMS_OF("t.created_by")} END AS teams
           FROM api_tokens t
          WHERE t.token_hash = $1 AND t.revoked_at IS NULL AND t.expires_at > clock_timestamp() AND ${TOKEN_OWNER_ACTIVE_SQL}
       ),
       touched AS (
         UPDATE api_tokens x SET last_used_at = clock_timestamp() FROM t
          WHERE x.id = t.id AND ${STALE_SQL("t.last_used_at")}
       )
       SELECT id, name, role, programs, creator_role, teams, team_id, scopes FROM t`,
      [sha256Hex(c.bearerToken)],
    );
    const t = rows[0];
    if (!t) return null;
    const { role, teams } = tokenRoles(t);
    return {
      type: "token",
      id: t.id,
      label: `token:${t.name}`,
      role,
      mayRunPrograms: t.programs,
      teams,
      tokenTeamId: t.team_id,
      scopes: t.scopes,
      ip: c.ip,
      userAgent: c.userAgent,
    };
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
          role: userRole(u.role, u.teams),
          mayRunPrograms: u.programs,
          teams: u.teams,
          ip: c.ip,
          userAgent: c.userAgent,
        }
      : null;
  }
  return null;
}
