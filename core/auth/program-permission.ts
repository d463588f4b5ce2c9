// The program permission: making a program run on a worker host (a handler that runs one — shell.command, or any
// handler its workers advertise with runsPrograms) is refused to an actor without it. Every path that stores such a
// schedule or makes one of its runs happen (create, edit, enable/resume, trigger, backfill, re-run, bulk re-run,
// apply) calls one of these in core/, so a new route cannot forget it; roles.ts says who holds it.
import type { Queryable } from "../db/pool";
import { DomainError } from "../errors";
import { getBuiltinHandlerSpec } from "../handlers/handler-registry";
import { actorMayRunPrograms, type Actor } from "./roles";

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

/** The same for stored schedules, by id (a schedule that does not exist is left to the caller's own lookup). */
export async function assertMayRunSchedules(db: Queryable, actor: Actor, scheduleIds: readonly string[]): Promise<void> {
  if (actorMayRunPrograms(actor) || scheduleIds.length === 0) return;
  const { rows } = await db.query<{ handler: string }>(`SELECT DISTINCT handler FROM schedules WHERE id = ANY($1::uuid[])`, [
    [...scheduleIds],
  ]);
  await assertMayUseHandlers(
    db,
    actor,
    rows.map((r) => r.handler),
  );
}
