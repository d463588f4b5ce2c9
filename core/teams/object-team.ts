// The owning team of each kind of team object, and the check a route runs before it reads or changes one: the one
// place that knows how a run, an alert or a trigger URL reaches its team (through its schedule).
import type { Actor } from "../auth/roles";
import type { Queryable } from "../db/pool";
import { assertTeamRole, type TeamNeed } from "./team-access";

export type TeamObjectKind = "schedule" | "run" | "alert" | "calendar" | "secret" | "alert_channel" | "concurrency_group";

/** What the 404 calls the object ("Schedule x does not exist"), the same words as each object's own lookup. */
const NOUN: Record<TeamObjectKind, string> = {
  schedule: "Schedule",
  run: "Run",
  alert: "Alert",
  calendar: "Calendar",
  secret: "Secret",
  alert_channel: "Alert channel",
  concurrency_group: "Concurrency group",
};

// A schedule deleted (soft) keeps its team, so its runs' history stays its team's.
const TEAM_OF_SQL: Record<TeamObjectKind, string> = {
  schedule: `SELECT team_id FROM schedules WHERE id::text = $1`,
  run: `SELECT s.team_id FROM runs r JOIN schedules s ON s.id = r.schedule_id WHERE r.id::text = $1`,
  alert: `SELECT s.team_id FROM alerts a JOIN schedules s ON s.id = a.schedule_id WHERE a.id::text = $1`,
  calendar: `SELECT team_id FROM calendars WHERE id::text = $1 OR name = $1 LIMIT 1`,
  secret: `SELECT team_id FROM secrets WHERE name = $1`,
  alert_channel: `SELECT team_id FROM alert_channels WHERE id::text = $1`,
  concurrency_group: `SELECT team_id FROM concurrency_groups WHERE name = $1`,
};

/** The object's team id, or null when no such object exists (an alert of no schedule: installation-wide). */
export async function findObjectTeam(db: Queryable, kind: TeamObjectKind, key: string): Promise<string | null> {
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
  if (teamId !== null) assertTeamRole(actor, teamId, need, NOUN[kind], key);
}
