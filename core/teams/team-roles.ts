// Teams (namespaces): every schedule, calendar, secret, alert channel and concurrency group belongs to one team, and
// a user holds a role per team. A team role ranks like the global roles (viewer < operator < admin of that team);
// an auditor reads the team's audit trail and nothing else. The global admin (users.role = 'admin') acts in every team.
import { z } from "zod";

/** The team everything that existed before teams moved into (prisma/migrations/20261208300000_teams). */
export const DEFAULT_TEAM_ID = "00000000-0000-4000-8000-000000000001";
export const DEFAULT_TEAM_NAME = "default";

export const teamRoleSchema = z.enum(["viewer", "operator", "admin", "auditor"]);
export type TeamRole = z.infer<typeof teamRoleSchema>;

/** A caller's roles, by team id. */
export type TeamRoles = Readonly<Record<string, TeamRole>>;
