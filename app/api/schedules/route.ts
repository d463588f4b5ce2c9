// GET  /api/schedules?q=&tag=&handler=&sort=&dir=&offset=&limit=   (viewer)
//   q: part of the name, handler or description; tag: schedules carrying it (repeatable or comma-separated: every one of them); handler: exact handler name;
//   sort: name (default) | next_fire | last_state (worst first) | trouble (most late/missed/hollow/failed in 24 h
//   first); dir=desc reverses it; offset (default 0) and limit (1..500, default 100) page through the result.
//   → { schedules: ScheduleListItem[], total, offset, limit } (core/schedules/list-schedules.ts: a Schedule of
//     schedule-record.ts plus tags, next fire, last run, 24 h counts and recent lateness). Dates are ISO strings.
//   Conditional: answers 304 to an If-None-Match naming its current ETag (nothing the page shows has changed).
// POST /api/schedules   (operator) body: scheduleInputSchema (core/schedules/schedule-input.ts)
//   → 200 { schedule: Schedule }; 422 { error: { code, message, fields: { "<field>": "<message>" } } } naming each
//     bad field (trigger.cron, trigger.timezone, trigger.everySeconds, trigger.at, handler, payload.<path>…);
//     409 code name_taken (field name). Nothing is stored on an error.
import { scheduleItem, scheduleListItem } from "@/app/api/_lib/contract/answer-shapes";
import { z } from "zod";
import { apiRoute } from "../_lib/api-route";
import { getPool } from "@/core/db/pool";
import { conditionalJson } from "../_lib/conditional-json";
import { createParsedSchedule } from "@/core/schedules/create-schedule";
import { listSchedulePage, MAX_SCHEDULE_PAGE, SCHEDULE_SORTS } from "@/core/schedules/list-schedules";
import { scheduleInputSchema, tagListSchema } from "@/core/schedules/schedule-input";
import { accessVariant, narrowTeams, objectRole, visibleTeamIds } from "@/core/teams/team-access";
import { payloadForRole, plainCredentialWarnings } from "@/core/secrets/mask-credentials";

export const dynamic = "force-dynamic";

export const GET = apiRoute(
  {
    access: "viewer",
    scope: "schedules:read",
    summary: "List schedules with their next fire, last run and recent counts.",
    answer: z.looseObject({ schedules: z.array(scheduleListItem), total: z.number(), offset: z.number(), limit: z.number() }),
    listParams: ["tag"],
    query: z.object({
      q: z.string().max(200).optional(),
      tag: tagListSchema.optional(),
      handler: z.string().max(200).optional(),
      sort: z.enum(SCHEDULE_SORTS, { error: `sort must be one of ${SCHEDULE_SORTS.join(", ")}` }).optional(),
      dir: z.enum(["asc", "desc"], { error: "dir must be asc or desc" }).optional(),
      offset: z.coerce.number().int().min(0).max(1_000_000).optional(),
      limit: z.coerce.number().int().min(1).max(MAX_SCHEDULE_PAGE).optional(),
      team: z.uuid({ error: "team must be a team id" }).optional(),
    }),
  },
  async ({ req, query, actor }) =>
    conditionalJson(
      req,
      accessVariant(actor),
      async () => {
        const page = await listSchedulePage(getPool(), {
          ...query,
          teamIds: narrowTeams(visibleTeamIds(actor), query.team),
          tags: query.tag,
          desc: query.dir === "desc",
          limit: query.limit ?? 100,
        });
        return {
          ...page,
          schedules: page.schedules.map((s) => ({ ...s, payload: payloadForRole(objectRole(actor, s.teamId), s.payload) })),
        };
      },
      { clock: "pauses" },
    ),
);

// The body's rules and messages are core's schema; the checks that need the database (payload, one-off time) follow in core.
// `warnings` lists payload values that look like plain-text credentials (they belong in the secret store).
export const POST = apiRoute(
  {
    access: "operator",
    scope: "schedules:write",
    summary: "Create a schedule (audited).",
    answer: z.object({ schedule: scheduleItem, warnings: z.array(z.unknown()) }),
    errors: ["name_taken", "dependency_cycle"],
    body: scheduleInputSchema,
  },
  async ({ body, actor }) => {
    const schedule = await createParsedSchedule(body, actor);
    return { schedule, warnings: plainCredentialWarnings(schedule.payload) };
  },
);
