import { runTrace } from "@/app/api/_lib/contract/answer-shapes";
import { z } from "zod";
import { apiRoute } from "../../_lib/api-route";
import { getPool } from "@/core/db/pool";
import { getRunTrace } from "@/core/runs/read/get-run";
import { getEnv } from "@/core/env";
import { objectRole } from "@/core/teams/team-access";
import { payloadForRole } from "@/core/secrets/mask-credentials";

export const dynamic = "force-dynamic";

/** One run's single trace: run, schedule name, events in order, attempts, logs, timings. */
/** A viewer sees credential-looking payload values masked (core/secrets/mask-credentials.ts). */
export const GET = apiRoute(
  {
    access: "viewer",
    scope: "runs:read",
    object: { kind: "run", param: "id" },
    summary: "One run's trace: the run, its events, attempts and logs.",
    answer: runTrace,
    params: z.object({ id: z.uuid() }),
  },
  async ({ params, actor }) => {
    const trace = await getRunTrace(getPool(), params.id, { deadAfterMs: getEnv().VIGIL_WORKER_DEAD_AFTER_MS });
    return { ...trace, run: { ...trace.run, payload: payloadForRole(objectRole(actor, trace.run.teamId), trace.run.payload) } };
  },
);
