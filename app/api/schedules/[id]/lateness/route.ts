// GET /api/schedules/:id/lateness?hours=6 → ScheduleLateness (core/metrics/get-schedule-lateness.ts; dates as ISO
// strings) for the lateness chart on the schedule page.
import { iso } from "@/app/api/_lib/contract/answer-shapes";
import { z } from "zod";
import { apiRoute } from "../../../_lib/api-route";
import { getPool } from "@/core/db/pool";
import { getScheduleLateness } from "@/core/metrics/get-schedule-lateness";

export const dynamic = "force-dynamic";

const query = z.strictObject({ hours: z.coerce.number().int().min(1, "at least 1").max(168, "at most 168 (7 days)").default(6) });

export const GET = apiRoute(
  {
    access: "viewer",
    scope: "runs:read",
    object: { kind: "schedule", param: "id" },
    summary: "A schedule's recent lateness (the lateness chart).",
    answer: z.looseObject({
      schedule: z.looseObject({ id: z.string(), name: z.string(), latenessP95SloMs: z.number().nullable() }),
      from: iso,
      to: iso,
      p95Ms: z.number().nullable(),
      points: z.array(z.unknown()),
    }),
    params: z.object({ id: z.uuid() }),
    query,
  },
  async ({ params, query: q }) => getScheduleLateness(getPool(), params.id, q.hours),
);
