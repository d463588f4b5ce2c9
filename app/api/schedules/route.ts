// GET  /api/schedules?q=&limit=   (viewer)
//   → { schedules: ScheduleListItem[] } (core/schedules/list-schedules.ts: a Schedule of schedule-record.ts plus next
//     fire, last run, 24 h counts and recent lateness). Dates are ISO strings.
// POST /api/schedules   (operator) body: scheduleInputSchema (core/schedules/schedule-input.ts)
//   → 200 { schedule: Schedule }; 422 { error: { code, message, fields: { "<field>": "<message>" } } } naming each
//     bad field (trigger.cron, trigger.timezone, trigger.everySeconds, trigger.at, handler, payload.<path>…);
//     409 code name_taken (field name). Nothing is stored on an error.
import { z } from "zod";
import { apiRoute } from "../_lib/api-route";
import { createSchedule } from "@/core/schedules/create-schedule";
import { listSchedules } from "@/core/schedules/list-schedules";

export const dynamic = "force-dynamic";

export const GET = apiRoute(
  {
    access: "viewer",
    query: z.object({
      q: z.string().max(200).optional(),
      limit: z.coerce.number().int().min(1).max(5000).optional(),
    }),
  },
  async ({ query }) => ({ schedules: await listSchedules({ q: query.q, limit: query.limit }) }),
);

// The body is validated by core (one place owns the rules and their messages).
export const POST = apiRoute({ access: "operator", body: z.unknown() }, async ({ body, actor }) => ({
  schedule: await createSchedule(body, actor!),
}));
