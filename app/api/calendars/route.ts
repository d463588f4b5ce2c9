// GET  /api/calendars[?team=<id>]   (viewer) → { calendars: Calendar[] } (core/calendars/calendar-record.ts), by name,
//      each with the schedules that follow it. ?team (the header's team switcher) narrows within the caller's teams to
//      the calendars that team owns or that are shared with it (or with every team).
// POST /api/calendars   (operator) body: calendarInputSchema (core/calendars/calendar-input.ts) → { calendar, dryRun,
//      effects, cancelledRuns }; dryRun: true stores nothing. 409 name_taken; 422 naming each bad field.
import { z } from "zod";
import { narrowTeams, visibleTeamIds } from "@/core/teams/team-access";
import { apiRoute } from "../_lib/api-route";
import { getPool } from "@/core/db/pool";
import { calendarAnswerSchema, calendarSaveAnswerSchema } from "@/core/calendars/calendar-answer";
import { calendarInputSchema } from "@/core/calendars/calendar-input";
import { listCalendars } from "@/core/calendars/calendar-record";
import { createParsedCalendar } from "@/core/calendars/save-calendar";

export const dynamic = "force-dynamic";

export const GET = apiRoute(
  {
    access: "viewer",
    scope: "schedules:read",
    summary: "List business calendars with the schedules that follow each",
    answer: z.object({ calendars: z.array(calendarAnswerSchema) }),
    query: z.object({ team: z.uuid({ error: "team must be a team id" }).optional() }),
  },
  async ({ query, actor }) => {
    const teams = narrowTeams(visibleTeamIds(actor), query.team);
    // A picked team the caller is not in lists nothing (not even the calendars shared with every team), as elsewhere.
    if (query.team && teams?.length === 0) return { calendars: [] };
    return { calendars: await listCalendars(getPool(), teams) };
  },
);

export const POST = apiRoute(
  {
    access: "operator",
    scope: "schedules:write",
    body: calendarInputSchema,
    summary: "Create a business calendar (dryRun: true validates and stores nothing)",
    answer: calendarSaveAnswerSchema,
  },
  async ({ body, actor }) => createParsedCalendar(body, actor),
);
