// GET    /api/calendars/:id   (viewer) → { calendar }
// PUT    /api/calendars/:id   (operator) body: any subset of the calendar's fields + required `revision` (+ dryRun) →
//        { calendar, dryRun, effects: { changed: [{schedule, before, after}], unchanged }, cancelledRuns }: which
//        schedules' next fires change, old vs new. Saved, the schedules that follow it are replanned. 409 stale_revision.
// DELETE /api/calendars/:id?reason=   (operator) → { id, name }; 409 calendar_in_use naming the schedules that follow it.
import { z } from "zod";
import { apiRoute } from "../../_lib/api-route";
import { getPool } from "@/core/db/pool";
import { calendarAnswerSchema, calendarSaveAnswerSchema } from "@/core/calendars/calendar-answer";
import { calendarUpdateSchema } from "@/core/calendars/calendar-input";
import { getCalendarOrThrow } from "@/core/calendars/calendar-record";
import { deleteCalendar } from "@/core/calendars/delete-calendar";
import { updateCalendar } from "@/core/calendars/save-calendar";

export const dynamic = "force-dynamic";

const params = z.object({ id: z.uuid() });

export const GET = apiRoute(
  {
    access: "viewer",
    scope: "schedules:read",
    object: { kind: "calendar", param: "id" },
    params,
    summary: "Read one business calendar",
    answer: z.object({ calendar: calendarAnswerSchema }),
  },
  async ({ params }) => ({ calendar: await getCalendarOrThrow(getPool(), params.id) }),
);

export const PUT = apiRoute(
  {
    access: "operator",
    scope: "schedules:write",
    object: { kind: "calendar", param: "id" },
    params,
    body: calendarUpdateSchema,
    summary: "Edit a business calendar; dryRun: true answers which schedules' next fires change and stores nothing",
    answer: calendarSaveAnswerSchema,
  },
  async ({ params, body, actor }) => updateCalendar(params.id, body, actor),
);

export const DELETE = apiRoute(
  {
    access: "operator",
    scope: "schedules:write",
    object: { kind: "calendar", param: "id" },
    params,
    query: z.object({ reason: z.string().max(500).optional() }),
    summary: "Delete a business calendar that no schedule follows",
    answer: z.object({ id: z.string(), name: z.string() }),
  },
  async ({ params, query, actor }) => deleteCalendar(params.id, actor, { reason: query.reason ?? null }),
);
