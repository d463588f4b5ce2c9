// The one answer to "may this actor do X on an object of team T". Every route, page and list that shows or changes a
// team's object asks here: a caller with no role in the object's team is told the object does not exist (404, its
// existence never leaks); one with a role that is not enough is refused (403). Lists filter by visibleTeamIds.
//
// Who holds what: the global admin (users.role = 'admin', Vigil itself) acts in every team; everyone else holds the
// role its team_members row gives it in each team. An API token acts with its creator's team roles, capped by the
// token's own role, and a token bound to one team acts only there (core/auth/authenticate.ts builds the Actor).
import { createHash } from "node:crypto";
import type { Actor, Role } from "../auth/roles";
import { DomainError, ForbiddenError, NotFoundError } from "../errors";
import { DEFAULT_TEAM_ID, type TeamRole, type TeamRoles } from "./team-roles";

/** What an action needs in the object's team: a role that ranks at least as high, or "audit": reading the team's audit
 * trail, which every member does (an auditor does nothing else). */
export type TeamNeed = "viewer" | "operator" | "admin" | "audit";

const RANK: Record<TeamRole, number> = { auditor: 0, viewer: 1, operator: 2, admin: 3 };

/** The global admin: acts in every team (narrowed to its team when it is a team-bound token). */
export function isGlobalAdmin(actor: Actor): boolean {
  return actor.type === "system" || actor.role === "admin";
}

/** Whether a team role is enough for a need. */
export function teamRoleAllows(have: TeamRole, need: TeamNeed): boolean {
  if (need === "audit") return true;
  return RANK[have] >= RANK[need];
}

/**
 * The actor's team roles. An actor built in code without any (a script, a CLI command acting locally, a webhook
 * delivery's actor) acts in the default team with its role, as everything did before teams; authenticate() always
 * fills them for a request's caller.
 */
function teamsOf(actor: Actor): TeamRoles {
  return actor.teams ?? { [DEFAULT_TEAM_ID]: actor.role };
}

/** The actor's role in the team, or null when it has none there (the team's objects do not exist for it). */
export function teamRoleOf(actor: Actor, teamId: string): TeamRole | null {
  if (actor.tokenTeamId && actor.tokenTeamId !== teamId) return null;
  if (isGlobalAdmin(actor)) return "admin";
  return teamsOf(actor)[teamId] ?? null;
}

/** Whether the actor may act on an object of the team with the need. */
export function mayInTeam(actor: Actor, teamId: string, need: TeamNeed): boolean {
  const role = teamRoleOf(actor, teamId);
  return role !== null && teamRoleAllows(role, need);
}

/**
 * Throws unless the actor may do what needs `need` on an object of team `teamId`: NotFoundError (what, id) when the
 * actor has no role in that team — the same answer as for an object that does not exist — and ForbiddenError
 * naming the role it lacks when its role there is not enough.
 */
export function assertTeamRole(actor: Actor, teamId: string, need: TeamNeed, what: string, id?: string): void {
  const role = teamRoleOf(actor, teamId);
  if (role === null) throw new NotFoundError(what, id);
  if (!teamRoleAllows(role, need)) {
    throw new ForbiddenError(
      need === "audit"
        ? `Reading this team's audit trail needs a role in the team.`
        : `This needs the ${need} role in the ${what.toLowerCase()}'s team; you are ${role} there.`,
    );
  }
}

/**
 * The ids of the teams whose objects the actor may see with `need` (default: viewer), or null for every team (a global
 * admin not bound to one team). Lists filter with `team_id = ANY($n)` when this is not null (teamFilterSql).
 */
export function visibleTeamIds(actor: Actor, need: TeamNeed = "viewer"): string[] | null {
  if (isGlobalAdmin(actor)) return actor.tokenTeamId ? [actor.tokenTeamId] : null;
  return Object.entries(teamsOf(actor))
    .filter(([id, role]) => (!actor.tokenTeamId || id === actor.tokenTeamId) && teamRoleAllows(role, need))
    .map(([id]) => id)
    .sort();
}

/**
 * A WHERE condition limiting `column` (a team_id) to the teams the ids allow: `TRUE` for every team, else
 * `column = ANY($n::uuid[])` with the ids pushed onto params. Pass visibleTeamIds(actor) (or a narrower list).
 */
export function teamFilterSql(column: string, teamIds: readonly string[] | null, params: unknown[]): string {
  if (teamIds === null) return "TRUE";
  params.push([...teamIds]);
  return `${column} = ANY($${params.length}::uuid[])`;
}

/** The narrower of the visible teams and a team the caller picked (the console's team switcher, ?team=). */
export function narrowTeams(visible: string[] | null, picked: string | undefined): string[] | null {
  if (!picked) return visible;
  return visible === null || visible.includes(picked) ? [picked] : [];
}

/**
 * A key for answers shared between callers (conditional GETs, the change feed's shared answers): two callers with the
 * same key see the same objects.
 */
export function accessVariant(actor: Actor): string {
  const teams = visibleTeamIds(actor);
  if (teams === null) return `${actor.role}-all`;
  const key = teams.map((t) => `${t}=${teamsOf(actor)[t]}`).join(",");
  return `${actor.role}-${createHash("sha256").update(key).digest("hex").slice(0, 16)}`;
}

/** The role an object of the team is shown with (a viewer there sees credential-looking payload values masked). */
export function objectRole(actor: Actor, teamId: string): Role {
  if (isGlobalAdmin(actor) && teamRoleOf(actor, teamId) !== null) return actor.role;
  const role = teamRoleOf(actor, teamId);
  return role === "operator" || role === "admin" ? (actor.role === "viewer" ? "viewer" : "operator") : "viewer";
}

/**
 * The route-level role of a caller who is not the global admin: the highest it holds in any team, where a team admin
 * counts as an operator (the "admin" routes — users, tokens of others, retention, teams — are the global admin's) and
 * an auditor as a viewer (every object check then refuses it; the audit trail admits it). Someone in no team is a
 * viewer who sees nothing.
 */
export function routeRoleOf(teams: TeamRoles): Exclude<Role, "admin"> {
  return Object.values(teams).some((r) => r === "operator" || r === "admin") ? "operator" : "viewer";
}

/** Caps each team role at a token's own role (an operator token of a team admin acts as an operator there). */
export function capTeamRoles(teams: TeamRoles, cap: Role): TeamRoles {
  const out: Record<string, TeamRole> = {};
  for (const [id, role] of Object.entries(teams)) out[id] = role !== "auditor" && RANK[role] > RANK[cap] ? cap : role;
  return out;
}

/** Refused: a team's object refers to another team's object that is not shared with it. */
export class CrossTeamReferenceError extends DomainError {
  constructor(kind: string, name: string, ownerTeam: string, field?: string) {
    super(
      422,
      "cross_team_reference",
      `The ${kind} ${name} belongs to team ${ownerTeam} and is not shared with this schedule's team.`,
      field ? { [field]: `The ${kind} ${name} belongs to team ${ownerTeam} and is not shared with this team.` } : undefined,
    );
  }
}
