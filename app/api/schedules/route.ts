// GET  /api/schedules?q=&limit=&tag=   (viewer) tag: repeatable (or comma-separated); only schedules having every tag
//   → { schedules: ScheduleListItem[] } (core/schedules/list-schedules.ts: a Schedule of schedule-record.ts plus next
//     fire, last run, 24 h counts and recent lateness). Dates are ISO strings.
// POST /api/schedules   (operator) body: scheduleInputSchema (core/schedules/schedule-input.ts)
//   → 200 { schedule: Schedule }; 422 { error: { code, message, fields: { "<field>": "<message>" } } } naming each
//     bad field (trigger.cron, trigger.timezone, trigger.everySeconds, trigger.at, handler, payload.<path>…);
//     409 code name_taken (field name). Nothing is stored on an error.
import { z } from "zod";
import { apiRoute } from "../_lib/api-route";
import { createParsedSchedule } from "@/core/schedules/create-schedule";
import { listSchedules } from "@/core/schedules/list-schedules";
import { scheduleInputSchema, tagListSchema } from "@/core/schedules/schedule-input";
import { payloadForRole, plainCredentialWarnings } from "@/core/secrets/mask-credentials";

export const dynamic = "force-dynamic";

export const GET = apiRoute(
  {
    access: "viewer",
    listParams: ["tag"],
    query: z.object({
      q: z.string().max(200).optional(),
      tag: tagListSchema.optional(),
      limit: z.coerce.number().int().min(1).max(5000).optional(),
    }),
  },
  async ({ query, actor }) => ({
    schedules: (await listSchedules({ q: query.q, limit: query.limit, tags: query.tag })).map((s) => ({
      ...s,
      payload: payloadForRole(actor.role, s.payload),
    })),
  }),
);

// The body's rules and messages are core's schema; the checks that need the database (payload, one-off time) follow in core.
// `warnings` lists payload values that look like plain-text credentials (they belong in the secret store).
export const POST = apiRoute({ access: "operator", body: scheduleInputSchema }, async ({ body, actor }) => {
  const schedule = await createParsedSchedule(body, actor);
  return { schedule, warnings: plainCredentialWarnings(schedule.payload) };
});
