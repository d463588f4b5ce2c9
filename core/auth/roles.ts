// Roles are ordered: a viewer reads, an operator also acts on schedules and runs, an admin also
// manages users and tokens. Running a program on a worker host is a permission beside the roles: every admin
// holds it, an operator only when an admin grants it (core/auth/program-permission.ts enforces it).
import { z } from "zod";
import type { TeamRoles } from "../teams/team-roles";

export const roleSchema = z.enum(["viewer", "operator", "admin"]);
export type Role = z.infer<typeof roleSchema>;

const rank: Record<Role, number> = { viewer: 1, operator: 2, admin: 3 };

export function roleAllows(have: Role, need: Role): boolean {
  return rank[have] >= rank[need];
}

/** Who did something: a signed-in user, an API token, Vigil itself (planner, reaper…), or — for a
 * failed sign-in only — whoever typed that email ("anonymous", labelled with the email tried), or an outside system
 * delivering to a trigger URL ("webhook", labelled with the URL's label). */
export interface Actor {
  type: "user" | "token" | "system" | "anonymous" | "webhook";
  id: string | null;
  label: string;
  role: Role;
  /** Granted the program permission (an admin holds it by role); a token carries its creator's grant. */
  mayRunPrograms?: boolean;
  /** The caller's role in each team it belongs to (a token: its creator's, narrowed to the token's team). A global
   * admin (role "admin") acts in every team whatever this holds. */
  teams?: TeamRoles;
  /** A token bound to one team acts only there; absent for users and for tokens of every team of their creator. */
  tokenTeamId?: string | null;
  /** A token's scopes (e.g. "runs:trigger"); absent or empty: everything its role allows. */
  scopes?: readonly string[];
  ip?: string | null;
  userAgent?: string | null;
}

export function systemActor(label: string): Actor {
  return { type: "system", id: null, label, role: "admin" };
}

/** Whether the actor may make a program run on a worker host: admins by role, operators by an admin's grant. */
export function actorMayRunPrograms(actor: Actor): boolean {
  return actor.role === "admin" || (actor.role === "operator" && actor.mayRunPrograms === true);
}
