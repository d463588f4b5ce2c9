// The owning team of each kind of team object, and the check a route runs before it reads or changes one: the one
// place that knows how a run, an alert or a trigger URL reaches its team (through its schedule).
import type { Actor } from "../auth/roles";
import type { Queryable } from "../db/pool";
import { assertTeamRole, teamRoleOf, visibleTeamIds, type TeamNeed } from "./team-access";

export type TeamObjectKind = "team" | "schedule" | "run" | "alert" | "calendar" | "secret" | "alert_channel" | "concurrency_group";

/** What the 404 calls the object ("Schedule x does not exist"), the same words as each object's own lookup. */
const NOUN: Record<TeamObjectKind, string> = {
  team: "Team",
  schedule: "Schedule",
  run: "Run",
  alert: "Alert",
  calendar: "Calendar",
  secret: "Secret",
  alert_channel: "Alert channel",
  concurrency_group: "Concurrency group",
};

const UUID_PATTERN = "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$";
const UUID = new RegExp(UUID_PATTERN, "i");
const KEYED_BY_UUID = new Set<TeamObjectKind>(["team", "schedule", "run", "alert", "alert_channel"]);

// A schedule deleted (soft) keeps its team, so its runs' history stays its team's.
const TEAM_OF_SQL: Record<TeamObjectKind, string> = {
  team: `SELECT id AS team_id FROM teams WHERE id = $1::uuid`,
  schedule: `SELECT team_id FROM schedules WHERE id = $1::uuid`,
  run: `SELECT s.team_id FROM runs r JOIN schedules s ON s.id = r.schedule_id WHERE r.id = $1::uuid`,
  alert: `SELECT s.team_id FROM alerts a JOIN schedules s ON s.id = a.schedule_id WHERE a.id = $1::uuid`,
  calendar: `SELECT team_id FROM calendars WHERE name = $1 OR id = (CASE WHEN $1 ~* '${UUID_PATTERN}' THEN $1::uuid END) LIMIT 1`,
  secret: `SELECT team_id FROM secrets WHERE name = $1`,
  alert_channel: `SELECT team_id FROM alert_channels WHERE id = $1::uuid`,
  concurrency_group: `SELECT team_id FROM concurrency_groups WHERE name = $1`,
};

/** The object's team id, or null when no such object exists (an alert of no schedule: installation-wide). */
export async function findObjectTeam(db: Queryable, kind: TeamObjectKind, key: string): Promise<string | null> {
  if (KEYED_BY_UUID.has(kind) && !UUID.test(key)) return null;
  const { rows } = await db.query<{ team_id: string }>(TEAM_OF_SQL[kind], [key]);
  return rows[0]?.team_id ?? null;
}

/**
 * Throws NotFoundError when the object exists in a team where the actor has no role (as if it did not exist) and
 * ForbiddenError when its role there is not enough. An object that does not exist is left to the operation's own
 * lookup, which answers 404 in its own words.
 */
export async function assertObjectAccess(db: Queryable, actor: Actor, kind: TeamObjectKind, key: string, need: TeamNeed): Promise<void> {
  const teamId = await findObjectTeam(db, kind, key);
  if (teamId === null) return;
  // A calendar shared with one of the caller's teams is theirs to read (not to change).
  if (kind === "calendar" && need === "viewer" && teamRoleOf(actor, teamId) === null && (await isSharedWith(db, kind, key, actor))) return;
  assertTeamRole(actor, teamId, need, NOUN[kind], key);
}

/** Whether the object is shared with every team or with one where the actor is at least a viewer. */
async function isSharedWith(db: Queryable, kind: TeamObjectKind, key: string, actor: Actor): Promise<boolean> {
  const teams = visibleTeamIds(actor);
  const { rows } = await db.query(
    `SELECT 1 FROM team_shares sh JOIN calendars c ON sh.kind = 'calendar' AND sh.object_key = c.id::text AND sh.owner_team_id = c.team_id
      WHERE sh.kind = $1 AND (c.name = $2 OR c.id::text = $2)
        AND (sh.shared_with_team_id IS NULL OR $3::uuid[] IS NULL OR sh.shared_with_team_id = ANY($3::uuid[])) LIMIT 1`,
    [kind, key, teams],
  );
  return rows.length > 0;
}
