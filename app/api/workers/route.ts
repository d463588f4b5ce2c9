import { z } from "zod";
import { apiRoute } from "../_lib/api-route";
import { getPool } from "@/core/db/pool";
import { getEnv } from "@/core/env";
import { listWorkers } from "@/core/workers/list-workers";

export const dynamic = "force-dynamic";

export const GET = apiRoute(
  {
    access: "viewer",
    scope: "metrics:read",
    summary: "Worker processes, live and recently dead.",
    answer: z.object({ workers: z.array(z.looseObject({ id: z.string(), host: z.string(), pid: z.number(), state: z.string() })) }),
  },
  async () => ({
    workers: await listWorkers(getPool(), getEnv().VIGIL_WORKER_DEAD_AFTER_MS),
  }),
);
