// GET /api/teams/:id/code-execution   (a member of the team, or a global admin) → { team: { teamId, team, codeExecution,
//   commandAllowList } }: whether the team's schedules may run programs on a worker host, and which command lines.
// PUT (global admin) body: { codeExecution?, commandAllowList?: argv patterns, workerPool?: name | null, reason? } → the
//   same with movedJobs, audited as team.code_execution_change. 404 for a team the caller is no member of; 422 naming a bad pattern.
//   workerPool: the team's runs execute only on workers started with that pool (--pool); null: on those without one.
//   Changing it moves the team's queued runs to the new pool's queues in the same transaction (pg-boss cancels each waiting job and the run is sent a new one; movedJobs: how many).
import { z } from "zod";
import { apiRoute } from "../../../_lib/api-route";
import { getPool } from "@/core/db/pool";
import { getConsoleBoss } from "@/core/queue/console-boss";
import { getTeamCodeExecution, setTeamCodeExecution, teamCodeExecutionInputSchema } from "@/core/teams/team-code-execution";

export const dynamic = "force-dynamic";

const params = z.object({ id: z.uuid() });
const teamView = z.object({
  teamId: z.string(),
  team: z.string(),
  codeExecution: z.boolean(),
  commandAllowList: z.array(z.array(z.string())),
  workerPool: z.string().nullable(),
});
const answer = z.object({ team: teamView });

export const GET = apiRoute(
  {
    access: "viewer",
    scope: "schedules:read",
    object: { kind: "team", param: "id" },
    params,
    summary: "A team's code execution and command allow-list.",
    answer,
  },
  async ({ params, actor }) => ({ team: await getTeamCodeExecution(getPool(), params.id, actor) }),
);

export const PUT = apiRoute(
  {
    access: "admin",
    scope: "admin",
    object: { kind: "team", param: "id" },
    params,
    body: teamCodeExecutionInputSchema,
    summary: "Turn a team's code execution on or off, set its command allow-list and worker pool (global admin, audited).",
    answer: z.object({ team: teamView, movedJobs: z.number().int() }),
  },
  async ({ params, body, actor }) => {
    // A pool change moves the team's queued runs (pg-boss cancels and sends their jobs), which needs the pg-boss client.
    const boss = body.workerPool !== undefined ? await getConsoleBoss() : undefined;
    const { movedJobs, ...team } = await setTeamCodeExecution(params.id, body, actor, { boss });
    return { team, movedJobs };
  },
);
