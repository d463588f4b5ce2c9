// The program permission: making a program run on a worker host (a handler that runs one — shell.command, or any
// handler its workers advertise with runsPrograms) is refused to an actor without it. Every path that stores such a
// schedule or makes one of its runs happen (create, edit, enable/resume, trigger, backfill, re-run, bulk re-run,
// apply) calls one of these in core/, so a new route cannot forget it; roles.ts says who holds it.
// Per team: a stored schedule's program runs only when its team has code execution on, the actor may run programs in
// that team (a global admin; the team's admin; or the team's operator holding the grant), and — when the team keeps a
// command allow-list — its command line matches one of the team's argv patterns (command-allow-list.ts).
import type { Queryable } from "../db/pool";
import { DomainError } from "../errors";
import { getBuiltinHandlerSpec } from "../handlers/handler-registry";
import { SHELL_COMMAND_HANDLER } from "../handlers/process-group-handlers";
import { actorMayRunPrograms, type Actor } from "./roles";
import { commandAllowListSchema, findAllowingPattern, showArgv } from "./command-allow-list";

export class ProgramPermissionError extends DomainError {
  constructor(handler: string) {
    super(
      403,
      "program_permission_required",
      `Handler ${handler} runs a program on a worker host: that needs the program permission, which admins hold and an admin can grant to an operator (Users page).`,
    );
  }
}

/** Whether the handler runs a program on the worker's host: a built-in's own spec, else what its workers advertised. */
export async function isProgramHandler(db: Queryable, handler: string): Promise<boolean> {
  const builtin = getBuiltinHandlerSpec(handler);
  if (builtin) return builtin.runsPrograms === true;
  const { rows } = await db.query<{ runs_programs: boolean }>(`SELECT runs_programs FROM handlers WHERE name = $1`, [handler]);
  return rows[0]?.runs_programs === true;
}

/** Throws ProgramPermissionError when the actor lacks the permission and any of the handlers runs a program. */
export async function assertMayUseHandlers(db: Queryable, actor: Actor, handlers: readonly string[]): Promise<void> {
  if (actorMayRunPrograms(actor)) return;
  for (const h of new Set(handlers)) if (await isProgramHandler(db, h)) throw new ProgramPermissionError(h);
}

/** Refused because the schedule's team does not run programs at all. */
export class TeamCodeExecutionOffError extends DomainError {
  constructor(team: string, handler: string) {
    super(
      403,
      "team_code_execution_off",
      `Handler ${handler} runs a program on a worker host, and team ${team} does not allow that: code execution is off for the team (a global admin turns it on, Teams page).`,
    );
  }
}

/** Refused because the command line matches none of the team's argv patterns. */
export class CommandNotAllowedError extends DomainError {
  constructor(team: string, argv: readonly string[] | null, patterns: readonly (readonly string[])[], handler: string) {
    super(
      403,
      "command_not_allowed",
      argv
        ? `The command ${showArgv(argv)} is outside team ${team}'s command allow-list (rule: the command must match one of ${patterns.map(showArgv).join(", ")}).`
        : `Handler ${handler} runs a program whose command line Vigil cannot see, and team ${team} keeps a command allow-list (rule: only shell.command lines matching ${patterns.map(showArgv).join(", ")}).`,
    );
  }
}

/** The argv a program handler's payload runs, when Vigil can tell (shell.command); null otherwise. */
export function programArgv(handler: string, payload: unknown): string[] | null {
  if (handler !== SHELL_COMMAND_HANDLER || payload === null || typeof payload !== "object") return null;
  const p = payload as { command?: unknown; script?: unknown };
  if (Array.isArray(p.command)) return p.command.map(String);
  if (typeof p.script === "string") return ["/bin/sh", "-c", p.script];
  return null;
}

/**
 * A global admin acts in every team. Read from the stored account, not from the actor's role (which for a non-admin
 * summarises team roles): a user whose account is admin; a token of role admin whose creator is (or was made before
 * tokens recorded a creator), limited to its team when it is bound to one.
 */
export async function isGlobalAdminIn(db: Queryable, actor: Actor, teamId: string): Promise<boolean> {
  if (actor.type === "system") return true;
  if (!actor.id || (actor.type !== "user" && actor.type !== "token")) return false;
  const { rows } = await db.query<{ admin: boolean }>(
    actor.type === "user"
      ? `SELECT role = 'admin' AS admin FROM users WHERE id = $1 AND disabled_at IS NULL`
      : `SELECT t.role = 'admin' AND (t.team_id IS NULL OR t.team_id = $2)
                AND (t.created_by IS NULL OR EXISTS (SELECT 1 FROM users u WHERE u.id = t.created_by AND u.role = 'admin')) AS admin
           FROM api_tokens t WHERE t.id = $1`,
    actor.type === "user" ? [actor.id] : [actor.id, teamId],
  );
  return rows[0]?.admin === true;
}

/**
 * Throws when the actor may not make these stored schedules run their programs: the actor's grant, then per
 * schedule its team's code execution, the actor's role in the team and the team's allow-list. `payload`: a run's
 * payload instead of the stored one (a trigger's override), checked against the allow-list the same way.
 * A schedule that does not exist is left to the caller's own lookup.
 */
export async function assertMayRunSchedules(
  db: Queryable,
  actor: Actor,
  scheduleIds: readonly string[],
  opts: { payload?: unknown } = {},
): Promise<void> {
  // Vigil itself (the planner ending a maintenance window) carries out what someone allowed already: a refusal
  // there would stop the planner's work for every team.
  if (scheduleIds.length === 0 || actor.type === "system") return;
  const { rows } = await db.query<{
    handler: string;
    payload: unknown;
    team_id: string;
    team: string;
    code_execution: boolean;
    command_allow_list: unknown;
  }>(
    `SELECT s.handler, s.payload, s.team_id, t.name AS team, t.code_execution, t.command_allow_list
       FROM schedules s JOIN teams t ON t.id = s.team_id WHERE s.id = ANY($1::uuid[])`,
    [[...scheduleIds]],
  );
  for (const s of rows) {
    if (!(await isProgramHandler(db, s.handler))) continue;
    if (!(await isGlobalAdminIn(db, actor, s.team_id))) {
      // A token acts with its creator's team role, never above its own role.
      const role = actor.type === "token" && actor.role === "viewer" ? "viewer" : actor.teams?.[s.team_id];
      if (!(role === "admin" || (role === "operator" && actor.mayRunPrograms === true))) {
        throw new DomainError(
          403,
          "program_permission_required",
          `Handler ${s.handler} runs a program on a worker host: in team ${s.team} that needs the team's admin role, or its operator role with the program permission.`,
        );
      }
    }
    if (!s.code_execution) throw new TeamCodeExecutionOffError(s.team, s.handler);
    const list = commandAllowListSchema.safeParse(s.command_allow_list);
    // A list that no longer reads as patterns allows nothing rather than everything.
    const patterns = list.success ? list.data : [["(unreadable allow-list)"]];
    if (patterns.length === 0) continue;
    const argv = programArgv(s.handler, opts.payload ?? s.payload);
    if (!argv || findAllowingPattern(patterns, argv) < 0) throw new CommandNotAllowedError(s.team, argv, patterns, s.handler);
  }
}
