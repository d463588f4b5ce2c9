// GET /api/overview/schedules → per live schedule, for the schedules list:
// { now: ISO, schedules: [{ scheduleId, lastRun: { runId, state, plannedAt, finishedAt } | null, nextFireAt: ISO | null, nextFireSource: "planned"|"computed"|null,
//   last24h: { late, missed, hollow, failed, total }, lateness: [{ plannedAt, latenessMs }] (last 30 started, oldest first) }] }
import { apiRoute } from "../../_lib/api-route";
import { getPool } from "@/core/db/pool";
import { getScheduleRunStats } from "@/core/runs/overview";

export const dynamic = "force-dynamic";

export const GET = apiRoute({ access: "viewer" }, async () => getScheduleRunStats(getPool()));
