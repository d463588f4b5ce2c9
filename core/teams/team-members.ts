// Team membership rows: who holds which role in a team. Writers audit in their own transaction.
import type { Queryable } from "../db/pool";
import { DEFAULT_TEAM_ID, type TeamRole } from "./team-roles";

/** Sets the user's role in the team (a manual membership; an SSO one becomes manual when an admin sets it). */
export async function addTeamMember(db: Queryable, teamId: string, userId: string, role: TeamRole): Promise<void> {
  await db.query(
    `INSERT INTO team_members (team_id, user_id, role, source) VALUES ($1, $2, $3, 'manual')
     ON CONFLICT (team_id, user_id) DO UPDATE SET role = EXCLUDED.role, source = 'manual'`,
    [teamId, userId, role],
  );
}

/** Removes the membership; true when there was one. */
export async function removeTeamMember(db: Queryable, teamId: string, userId: string): Promise<boolean> {
  const { rowCount } = await db.query(`DELETE FROM team_members WHERE team_id = $1 AND user_id = $2`, [teamId, userId]);
  return (rowCount ?? 0) > 0;
}

/**
 * The Users page's role of a viewer or operator is its role in the default team (where every account lived before
 * teams): creating such an account, or changing its role there, sets that membership. Other teams are set on the
 * Teams page.
 */
export async function syncDefaultTeamRole(db: Queryable, userId: string, role: string): Promise<void> {
  if (role === "viewer" || role === "operator") await addTeamMember(db, DEFAULT_TEAM_ID, userId, role);
}
