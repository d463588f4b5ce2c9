// POST /api/calendars/import   (operator) body: { name, timezone, ics: "<text of the .ics file>", description?, dryRun? }
//      → { calendar, dryRun, effects, cancelledRuns, imported: { events, skipped, dates, ranges } }. Events become
//      blocked dates (all-day) and ranges (timed; recurring ones expanded two years ahead). 422 invalid_ics when the
//      file cannot be read; nothing is stored then.
import { apiRoute } from "../../_lib/api-route";
import { calendarImportAnswerSchema } from "@/core/calendars/calendar-answer";
import { calendarImportSchema } from "@/core/calendars/calendar-input";
import { importCalendar } from "@/core/calendars/import-calendar";

export const dynamic = "force-dynamic";

export const POST = apiRoute(
  {
    access: "operator",
    scope: "schedules:write",
    body: calendarImportSchema,
    summary: "Create a business calendar from an iCalendar (.ics) file",
    answer: calendarImportAnswerSchema,
  },
  async ({ body, actor }) => importCalendar(body, actor),
);
