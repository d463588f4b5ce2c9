// Teams and their members as the API shows and changes them. Creating a team is the global admin's; a team's admin
// (or the global admin) sets and removes its members. Every change is audited (target "team") in its transaction.
import { z } from "zod";
import type { Actor } from "../auth/roles";
import { recordAudit } from "../audit/record-audit";
import { inTransaction, type Queryable } from "../db/pool";
import { ConflictError, NotFoundError, ValidationError } from "../errors";
import { assertTeamRole, isGlobalAdmin, teamRoleOf, visibleTeamIds } from "./team-access";
import { teamRoleSchema, type TeamRole } from "./team-roles";

export const teamInputSchema = z.strictObject({
  name: z
    .string({ error: "Name must be a string" })
    .regex(/^[a-z][a-z0-9-]{0,62}$/, { error: "Name: lowercase letters, digits and -, starting with a letter, at most 63 characters" }),
  description: z.string({ error: "Description must be a string" }).max(500, { error: "Description: at most 500 characters" }).default(""),
});
export type TeamInput = z.output<typeof teamInputSchema>;

export const memberInputSchema = z.strictObject({
  email: z.email({ error: "email must be a user's email address" }).max(320),
  /** null removes the member. */
  role: teamRoleSchema.nullable(),
});
export type MemberInput = z.output<typeof memberInputSchema>;

export interface TeamMemberView {
  userId: string;
  email: string;
  role: TeamRole;
  source: "manual" | "sso";
}

export interface TeamView {
  id: string;
  name: string;
  description: string;
  /** The caller's role in the team ("admin" for the global admin). */
  yourRole: TeamRole;
  /** Shown to the team's admins and the global admin; null to other members. */
  members: TeamMemberView[] | null;
  createdAt: Date;
}

/** The caller's teams (every team for the global admin), by name. */
export async function listTeams(db: Queryable, actor: Actor): Promise<TeamView[]> {
  const ids = isGlobalAdmin(actor) && !actor.tokenTeamId ? null : (visibleTeamIds(actor, "audit") ?? []);
  const { rows } = await db.query<{ id: string; name: string; description: string; created_at: Date; members: TeamMemberView[] }>(
    `SELECT t.id, t.name, t.description, t.created_at,
            coalesce((SELECT jsonb_agg(jsonb_build_object('userId', u.id, 'email', u.email, 'role', m.role, 'source', m.source) ORDER BY u.email)
                        FROM team_members m JOIN users u ON u.id = m.user_id WHERE m.team_id = t.id), '[]') AS members
       FROM teams t WHERE $1::uuid[] IS NULL OR t.id = ANY($1::uuid[]) ORDER BY t.name`,
    [ids],
  );
  return rows.map((r) => {
    const yourRole = teamRoleOf(actor, r.id)!;
    return {
      id: r.id,
      name: r.name,
      description: r.description,
      yourRole,
      members: yourRole === "admin" ? r.members : null,
      createdAt: r.created_at,
    };
  });
}

export async function createTeam(input: TeamInput, actor: Actor): Promise<{ id: string; name: string; description: string }> {
  return inTransaction({}, async (tx) => {
    const { rows } = await tx.query<{ id: string; name: string; description: string }>(
      `INSERT INTO teams (name, description, created_by) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING RETURNING id, name, description`,
      [input.name, input.description, actor.label],
    );
    const team = rows[0];
    if (!team) throw new ConflictError(`A team named ${input.name} already exists.`, "name_taken", { name: "This name is taken." });
    await recordAudit(tx, { actor, action: "team.create", targetType: "team", targetId: team.id, after: team });
    return team;
  });
}

/** Sets (or with role null removes) a member: the team's admin or the global admin. */
export async function setTeamMember(
  teamId: string,
  input: MemberInput,
  actor: Actor,
): Promise<{ team: string; members: TeamMemberView[] }> {
  return inTransaction({}, async (tx) => {
    const { rows: t } = await tx.query<{ name: string }>(`SELECT name FROM teams WHERE id = $1 FOR UPDATE`, [teamId]);
    if (!t[0]) throw new NotFoundError("Team", teamId);
    assertTeamRole(actor, teamId, "admin", "Team", teamId);
    const { rows: u } = await tx.query<{ id: string; role: string }>(`SELECT id, role FROM users WHERE lower(email) = lower($1)`, [
      input.email,
    ]);
    const user = u[0];
    if (!user) throw new ValidationError(`No user has the email ${input.email}.`, { email: "No such user." });
    const { rows: before } = await tx.query<{ role: string }>(`SELECT role FROM team_members WHERE team_id = $1 AND user_id = $2`, [
      teamId,
      user.id,
    ]);
    if (input.role === null) {
      await tx.query(`DELETE FROM team_members WHERE team_id = $1 AND user_id = $2`, [teamId, user.id]);
    } else {
      await tx.query(
        `INSERT INTO team_members (team_id, user_id, role, source) VALUES ($1, $2, $3, 'manual')
         ON CONFLICT (team_id, user_id) DO UPDATE SET role = EXCLUDED.role, source = 'manual'`,
        [teamId, user.id, input.role],
      );
    }
    if ((before[0]?.role ?? null) !== input.role) {
      await recordAudit(tx, {
        actor,
        action: input.role === null ? "team.member_remove" : "team.member_set",
        targetType: "team",
        targetId: teamId,
        before: { email: input.email, role: before[0]?.role ?? null },
        after: { email: input.email, role: input.role },
      });
    }
    const { rows: members } = await tx.query<TeamMemberView>(
      `SELECT u.id AS "userId", u.email, m.role, m.source FROM team_members m JOIN users u ON u.id = m.user_id WHERE m.team_id = $1 ORDER BY u.email`,
      [teamId],
    );
    return { team: t[0].name, members };
  });
}
