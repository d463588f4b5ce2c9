// Roles are ordered: a viewer reads, an operator also acts on schedules and runs, an admin also
// manages users and tokens.
import { z } from "zod";

export const roleSchema = z.enum(["viewer", "operator", "admin"]);
export type Role = z.infer<typeof roleSchema>;

const rank: Record<Role, number> = { viewer: 1, operator: 2, admin: 3 };

export function roleAllows(have: Role, need: Role): boolean {
  return rank[have] >= rank[need];
}

/** Who did something: a signed-in user, an API token, Vigil itself (planner, reaper…), or — for a
 * failed sign-in only — whoever typed that email ("anonymous", labelled with the email tried). */
export interface Actor {
  type: "user" | "token" | "system" | "anonymous";
  id: string | null;
  label: string;
  role: Role;
  ip?: string | null;
  userAgent?: string | null;
}

export function systemActor(label: string): Actor {
  return { type: "system", id: null, label, role: "admin" };
}
