// The shapes the calendar routes answer with (the API contract and the tests check answers against them).
import { z } from "zod";
import { CALENDAR_POLICIES } from "./calendar-rules";

const use = z.object({ id: z.string(), name: z.string(), policy: z.enum(CALENDAR_POLICIES) });

export const calendarAnswerSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  timezone: z.string(),
  dates: z.array(z.string()),
  weekdays: z.array(z.number().int()),
  windows: z.array(z.object({ weekdays: z.array(z.number().int()), start: z.string(), end: z.string() })),
  ranges: z.array(z.object({ start: z.string(), end: z.string(), summary: z.string().optional() })),
  revision: z.number().int(),
  createdBy: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  schedules: z.array(use),
  teamId: z.string(),
  team: z.string(),
  /** The teams its team shares it with (team null: every team). */
  sharedWith: z.array(z.object({ teamId: z.string().nullable(), team: z.string().nullable() })),
});

const fire = z.object({ nominalAt: z.string(), plannedAt: z.string(), fate: z.string(), reason: z.string().nullable() });

export const calendarSaveAnswerSchema = z.object({
  calendar: calendarAnswerSchema,
  dryRun: z.boolean(),
  effects: z.object({
    changed: z.array(z.object({ schedule: z.object({ id: z.string(), name: z.string() }), before: z.array(fire), after: z.array(fire) })),
    unchanged: z.array(z.string()),
  }),
  cancelledRuns: z.number().int(),
});

export const calendarImportAnswerSchema = calendarSaveAnswerSchema.extend({
  imported: z.object({ events: z.number().int(), skipped: z.number().int(), dates: z.number().int(), ranges: z.number().int() }),
});
