// GET /api/overview → what needs attention, for the header indicator.
// Response: { now: ISO, windowMinutes: 60, lastHour: { late, missed, hollow, zombie, failed }, running, queued }
// (counts of runs whose start or end fell in the last hour, on the database clock).
import { apiRoute } from "../_lib/api-route";
import { getPool } from "@/core/db/pool";
import { getRunsOverview } from "@/core/runs/overview";

export const dynamic = "force-dynamic";

export const GET = apiRoute({ access: "viewer" }, async () => getRunsOverview(getPool()));
