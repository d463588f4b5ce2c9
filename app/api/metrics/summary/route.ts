// GET /api/metrics/summary → the queue and worker figures the workers page shows, as JSON:
// { runsQueued (due), runsAhead (not due yet), runsWaiting, runsRunning, runsRetrying, jobsQueued, jobsAhead, jobsActive, liveWorkers, plannerLag: [{workerId, plannerLagMs}], openAlerts }
import { z } from "zod";
import { apiRoute } from "../../_lib/api-route";
import { getPool } from "@/core/db/pool";
import { getEnv } from "@/core/env";
import { getQueueSummary } from "@/core/metrics/get-queue-summary";

export const dynamic = "force-dynamic";

export const GET = apiRoute(
  {
    access: "viewer",
    scope: "metrics:read",
    summary: "Queue and worker figures (the workers page).",
    answer: z.looseObject({ runsQueued: z.number(), runsAhead: z.number(), runsRunning: z.number(), liveWorkers: z.number() }),
  },
  async () => getQueueSummary(getPool(), getEnv().VIGIL_WORKER_DEAD_AFTER_MS),
);
