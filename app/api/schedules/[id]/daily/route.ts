// GET /api/schedules/:id/daily?days=90 → the schedule's daily summaries (core/retention/list-daily-summaries.ts):
// counts and lateness per UTC day, kept after the runs themselves expire.
import { z } from "zod";
import { apiRoute } from "../../../_lib/api-route";
import { getPool } from "@/core/db/pool";
import { listDailySummaries } from "@/core/retention/list-daily-summaries";

export const dynamic = "force-dynamic";

const query = z.strictObject({ days: z.coerce.number().int().min(1, "at least 1").max(400, "at most 400").default(90) });

export const GET = apiRoute(
  {
    access: "viewer",
    scope: "runs:read",
    object: { kind: "schedule", param: "id" },
    summary: "A schedule's daily summaries (counts and lateness per UTC day).",
    answer: z.looseObject({ scheduleId: z.string(), days: z.array(z.looseObject({})), totals: z.looseObject({}) }),
    params: z.object({ id: z.uuid() }),
    query,
  },
  async ({ params, query: q }) => listDailySummaries(getPool(), params.id, q.days),
);
