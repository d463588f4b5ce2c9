// The one writer of single sign-on's team memberships (source 'sso'). At each sign-in they are replaced by what the
// provider's claims give now — VIGIL_OIDC_TEAM_RULES when set, else the role map's viewer or operator as a role in the
// default team (ssoDefaultTeamRoles) — so leaving a group at the provider leaves the team at the next sign-in.
// Memberships an admin set by hand (source 'manual') are never touched and win over the provider for their team; every
// change of the user's sso memberships is one audit row (user.sso_team_roles, teams before and after).
import type { Queryable } from "../../db/pool";
import { recordAudit } from "../../audit/record-audit";
import { getLogger } from "../../log";
import type { Actor } from "../roles";
import { DEFAULT_TEAM_ID, type TeamRole } from "../../teams/team-roles";

type Roles = Record<string, TeamRole>;

const sameRoles = (a: Roles, b: Roles) =>
  Object.keys(a).length === Object.keys(b).length && Object.entries(a).every(([team, role]) => b[team] === role);

/**
 * Without team rules, the role map's viewer or operator is the person's role in the default team (as the one global
 * role was before teams); admin (or no role) gives no membership there. By team name, for syncSsoTeamRoles.
 */
export async function ssoDefaultTeamRoles(tx: Queryable, mappedRole: string | null): Promise<Map<string, TeamRole>> {
  if (mappedRole !== "viewer" && mappedRole !== "operator") return new Map();
  const { rows } = await tx.query<{ name: string }>(`SELECT name FROM teams WHERE id = $1`, [DEFAULT_TEAM_ID]);
  return new Map(rows.map((r) => [r.name, mappedRole]));
}

/**
 * A sign-in that links an existing local account (without team rules) hands the provider the default-team membership
 * that mirrored the account's Users-page role: from then on that role is the provider's and the Users page shows it
 * read-only, so a mirror left 'manual' would keep the old role behind the provider's back. Only a row holding exactly
 * that role is handed over; syncSsoTeamRoles then audits the change as any other.
 */
export async function handOverLinkedDefaultTeamRole(tx: Queryable, userId: string, localRole: string): Promise<void> {
  await tx.query(`UPDATE team_members SET source = 'sso' WHERE team_id = $1 AND user_id = $2 AND source = 'manual' AND role = $3`, [
    DEFAULT_TEAM_ID,
    userId,
    localRole,
  ]);
}

/** Rewrites the user's 'sso' team memberships to `roles` (by team name), audited when they change; returns what they are now. */
export async function syncSsoTeamRoles(
  tx: Queryable,
  userId: string,
  roles: ReadonlyMap<string, TeamRole>,
  actor: Actor,
  provider: string,
): Promise<Roles> {
  const { rows: teams } = await tx.query<{ id: string; name: string }>(`SELECT id, name FROM teams WHERE name = ANY($1::text[])`, [
    [...roles.keys()],
  ]);
  const missing = [...roles.keys()].filter((name) => !teams.some((t) => t.name === name));
  if (missing.length) {
    getLogger().warn(
      { userId, provider, teams: missing },
      "VIGIL_OIDC_TEAM_RULES names teams that do not exist: those rules grant nothing",
    );
  }
  const { rows: was } = await tx.query<{ name: string; role: TeamRole }>(
    `DELETE FROM team_members m USING teams t WHERE m.user_id = $1 AND m.source = 'sso' AND t.id = m.team_id RETURNING t.name, m.role`,
    [userId],
  );
  const { rows: now } = await tx.query<{ name: string; role: TeamRole }>(
    `WITH wanted AS (SELECT * FROM unnest($2::uuid[], $3::text[]) AS w(team_id, role)),
          ins AS (
            INSERT INTO team_members (team_id, user_id, role, source)
            SELECT w.team_id, $1, w.role, 'sso' FROM wanted w
            ON CONFLICT (team_id, user_id) DO NOTHING RETURNING team_id, role
          )
     SELECT t.name, ins.role FROM ins JOIN teams t ON t.id = ins.team_id`,
    [userId, teams.map((t) => t.id), teams.map((t) => roles.get(t.name)!)],
  );
  const before = Object.fromEntries(was.map((r) => [r.name, r.role])) as Roles;
  const after = Object.fromEntries(now.map((r) => [r.name, r.role])) as Roles;
  if (!sameRoles(before, after)) {
    await recordAudit(tx, {
      actor,
      action: "user.sso_team_roles",
      targetType: "user",
      targetId: userId,
      before: { teams: before },
      after: { teams: after },
      reason: `sign-in through ${provider}`,
    });
  }
  return after;
}
