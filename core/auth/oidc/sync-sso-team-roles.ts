// At each single sign-on the user's team memberships that came from the provider (source 'sso') are replaced by what
// VIGIL_OIDC_TEAM_RULES give the claims now: leaving a group at the provider leaves the team at the next sign-in.
// Memberships an admin set by hand (source 'manual') are never touched, and win over a rule for the same team.
import type { Queryable } from "../../db/pool";
import { recordAudit } from "../../audit/record-audit";
import { getLogger } from "../../log";
import type { Actor } from "../roles";
import type { TeamRole } from "../../teams/team-roles";

type Roles = Record<string, TeamRole>;

const sameRoles = (a: Roles, b: Roles) =>
  Object.keys(a).length === Object.keys(b).length && Object.entries(a).every(([team, role]) => b[team] === role);

/** Rewrites the user's 'sso' team memberships to `roles` (by team name); returns what they are now. */
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
