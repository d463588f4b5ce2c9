// Which team a new object goes into: the team the caller named (body field `team`, a name or an id), else the
// caller's only team where it may create, else the default team for the global admin; a caller in several teams
// must say which.
import type { Actor } from "../auth/roles";
import type { Queryable } from "../db/pool";
import { ForbiddenError, ValidationError } from "../errors";
import { DEFAULT_TEAM_ID } from "./team-roles";
import { teamRoleAllows, teamRoleOf, visibleTeamIds, type TeamNeed } from "./team-access";

export interface TeamRef {
  id: string;
  name: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The team by name or id, or null. */
export async function findTeam(db: Queryable, ref: string): Promise<TeamRef | null> {
  const { rows } = await db.query<TeamRef>(
    UUID.test(ref) ? `SELECT id, name FROM teams WHERE id = $1::uuid` : `SELECT id, name FROM teams WHERE name = $1`,
    [ref],
  );
  return rows[0] ?? null;
}

/**
 * The team an object the actor creates goes into, checked: a team the actor has no role in is "no such team" (422 on
 * the field `team`, its existence not leaked), one where its role is not `need` is refused (403).
 */
export async function resolveTeamForCreate(
  db: Queryable,
  actor: Actor,
  ref: string | undefined,
  need: TeamNeed = "operator",
): Promise<TeamRef> {
  if (ref !== undefined) {
    const team = await findTeam(db, ref);
    const role = team ? teamRoleOf(actor, team.id) : null;
    if (!team || role === null) {
      const message = `No team named "${ref}" that you belong to.`;
      throw new ValidationError(message, { team: message }, "unknown_team");
    }
    if (!teamRoleAllows(role, need))
      throw new ForbiddenError(`Creating this in team ${team.name} needs the ${need} role there; you are ${role}.`);
    return team;
  }
  const candidates = visibleTeamIds(actor, need);
  if (candidates === null) return (await findTeam(db, DEFAULT_TEAM_ID))!;
  if (candidates.length === 1) return (await findTeam(db, candidates[0]!))!;
  if (candidates.length === 0) throw new ForbiddenError(`This needs the ${need} role in a team; you hold it in none.`);
  const { rows } = await db.query<{ name: string }>(`SELECT name FROM teams WHERE id = ANY($1::uuid[]) ORDER BY name`, [candidates]);
  const message = `You belong to several teams: say which one this goes into (team: ${rows.map((r) => r.name).join(", ")}).`;
  throw new ValidationError(message, { team: message }, "team_required");
}
