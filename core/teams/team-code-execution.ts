// A team's code execution: whether its schedules may run programs on a worker host at all, and the command lines
// (argv patterns, core/auth/command-allow-list.ts) they may run, and the worker pool its runs execute on
// (core/queue/worker-pool.ts; null: the workers without a pool). A global admin changes it (audited; a pool change
// moves the team's queued runs to the new pool's queues in the same transaction: each waiting job is cancelled through
// pg-boss and its run sent a fresh one, core/runs/operate/move-team-queued-runs.ts); the team's members read it. core/auth/program-permission.ts enforces it on every path that stores or runs a program.
import { z } from "zod";
import type { Actor } from "../auth/roles";
import { commandAllowListSchema, type CommandAllowList } from "../auth/command-allow-list";
import { isGlobalAdminIn } from "../auth/program-permission";
import { recordAudit } from "../audit/record-audit";
import { inTransaction, type Queryable } from "../db/pool";
import { ForbiddenError, NotFoundError } from "../errors";
import { workerPoolSchema } from "../queue/worker-pool";
import { moveTeamQueuedRuns } from "../runs/operate/move-team-queued-runs";
import type { PgBoss } from "pg-boss";

export const teamCodeExecutionInputSchema = z
  .strictObject({
    codeExecution: z.boolean({ error: "codeExecution must be true or false" }).optional(),
    commandAllowList: commandAllowListSchema.optional(),
    /** The worker pool the team's runs execute on; null: the workers without a pool. */
    workerPool: workerPoolSchema.nullable().optional(),
    reason: z.string().trim().max(500, { error: "reason must be at most 500 characters" }).optional(),
  })
  .refine((v) => v.codeExecution !== undefined || v.commandAllowList !== undefined || v.workerPool !== undefined, {
    message: "Change at least one of codeExecution, commandAllowList or workerPool.",
  });
export type TeamCodeExecutionInput = z.infer<typeof teamCodeExecutionInputSchema>;

export interface TeamCodeExecution {
  teamId: string;
  team: string;
  codeExecution: boolean;
  /** Empty: any command the program permission allows. */
  commandAllowList: CommandAllowList;
  /** The worker pool its runs execute on; null: the workers started without a pool. */
  workerPool: string | null;
}

interface Row {
  id: string;
  name: string;
  code_execution: boolean;
  command_allow_list: CommandAllowList;
  worker_pool: string | null;
}

const toView = (r: Row): TeamCodeExecution => ({
  teamId: r.id,
  team: r.name,
  codeExecution: r.code_execution,
  commandAllowList: r.command_allow_list,
  workerPool: r.worker_pool,
});

/** A team the actor is no member of is "not found" (its existence is not told), unless the actor is a global admin. */
async function findVisibleTeam(db: Queryable, teamId: string, actor: Actor, lock: boolean): Promise<Row> {
  const { rows } = await db.query<Row>(
    `SELECT id, name, code_execution, command_allow_list, worker_pool FROM teams WHERE id = $1${lock ? " FOR UPDATE" : ""}`,
    [teamId],
  );
  const row = rows[0];
  if (!row || (!actor.teams?.[teamId] && !(await isGlobalAdminIn(db, actor, teamId)))) throw new NotFoundError("Team", teamId);
  return row;
}

export async function getTeamCodeExecution(db: Queryable, teamId: string, actor: Actor): Promise<TeamCodeExecution> {
  return toView(await findVisibleTeam(db, teamId, actor, false));
}

export async function setTeamCodeExecution(
  teamId: string,
  input: TeamCodeExecutionInput,
  actor: Actor,
  opts: { db?: Queryable; boss?: PgBoss } = {},
): Promise<TeamCodeExecution & { movedJobs: number }> {
  return inTransaction({ tx: opts.db }, async (tx) => {
    const before = toView(await findVisibleTeam(tx, teamId, actor, true));
    if (!(await isGlobalAdminIn(tx, actor, teamId))) {
      throw new ForbiddenError(`Only a global admin changes team ${before.team}'s code execution, command allow-list and worker pool.`);
    }
    const { rows } = await tx.query<Row>(
      `UPDATE teams SET code_execution = COALESCE($2, code_execution), command_allow_list = COALESCE($3::jsonb, command_allow_list),
              worker_pool = CASE WHEN $4 THEN $5 ELSE worker_pool END
        WHERE id = $1 RETURNING id, name, code_execution, command_allow_list, worker_pool`,
      [
        teamId,
        input.codeExecution ?? null,
        input.commandAllowList ? JSON.stringify(input.commandAllowList) : null,
        input.workerPool !== undefined,
        input.workerPool ?? null,
      ],
    );
    const after = toView(rows[0]!);
    // The team's queued runs follow its pool, in this transaction, after the team row's lock and before the audit row.
    let movedJobs = 0;
    if (after.workerPool !== before.workerPool) {
      if (!opts.boss) throw new Error("setTeamCodeExecution: changing a worker pool needs the pg-boss client (opts.boss)");
      movedJobs = (await moveTeamQueuedRuns(tx, opts.boss, { teamId, from: before.workerPool, to: after.workerPool })).moved;
    }
    await recordAudit(tx, {
      actor,
      action: "team.code_execution_change",
      targetType: "team",
      targetId: teamId,
      before: { codeExecution: before.codeExecution, commandAllowList: before.commandAllowList, workerPool: before.workerPool },
      after: {
        codeExecution: after.codeExecution,
        commandAllowList: after.commandAllowList,
        workerPool: after.workerPool,
        ...(after.workerPool !== before.workerPool ? { movedQueuedJobs: movedJobs } : {}),
      },
      reason: input.reason,
    });
    return { ...after, movedJobs };
  });
}
