// GET /api/alerts/summary → { open, unacknowledged, critical, newest } for the header badge.
// Workers evaluate alerts, so only the console can notice that none is left: when no worker is
// live it evaluates the "no live worker" rule itself (one evaluator at a time, like the workers).
import { apiRoute } from "../../_lib/api-route";
import { getPool } from "@/core/db/pool";
import { getEnv } from "@/core/env";
import { alertOptionsFromEnv, evaluateAlerts } from "@/core/alerts/evaluate-alerts";
import { getAlertSummary } from "@/core/alerts/get-alert-summary";
import { countLiveWorkers } from "@/core/workers/list-workers";

export const dynamic = "force-dynamic";

export const GET = apiRoute({ access: "viewer" }, async () => {
  const pool = getPool();
  const env = getEnv();
  if ((await countLiveWorkers(pool, env.VIGIL_WORKER_DEAD_AFTER_MS)) === 0) {
    await evaluateAlerts(pool, { ...alertOptionsFromEnv(env), kinds: ["no_worker"] });
  }
  return getAlertSummary(pool);
});
