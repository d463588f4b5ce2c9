// The caller's teams with its role in each, as the console reads them from /api/auth/me: its team switcher lists them
// and its controls follow the role in an object's team. The global admin holds admin in every team (narrowed to its
// team when it is a team-bound token); an auditor's membership is listed (it reads that team's audit trail).
import type { Actor } from "../auth/roles";
import type { Queryable } from "../db/pool";
import { isGlobalAdmin, teamRoleOf, visibleTeamIds } from "./team-access";
import type { TeamRole } from "./team-roles";

export interface ActorTeam {
  id: string;
  name: string;
  role: TeamRole;
}

export async function listActorTeams(db: Queryable, actor: Actor): Promise<{ globalAdmin: boolean; teams: ActorTeam[] }> {
  const ids = visibleTeamIds(actor, "audit");
  const { rows } = await db.query<{ id: string; name: string }>(
    `SELECT id, name FROM teams WHERE $1::uuid[] IS NULL OR id = ANY($1::uuid[]) ORDER BY name`,
    [ids],
  );
  const teams = rows.flatMap((t) => {
    const role = teamRoleOf(actor, t.id);
    return role ? [{ id: t.id, name: t.name, role }] : [];
  });
  return { globalAdmin: isGlobalAdmin(actor) && !actor.tokenTeamId, teams };
}
