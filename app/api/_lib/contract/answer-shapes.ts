// Success-answer shapes shared by several routes, as JSON carries them (dates are ISO strings). Big answers are
// described by their key fields and left open (looseObject): the contract promises those, not every detail.
import { z } from "zod";
import { RUN_STATES } from "@/core/runs/run-states";
import { ALERT_KINDS } from "@/core/alerts/alert-kinds";

export const iso = z.string().describe("ISO 8601 date-time");
export const okAnswer = z.object({ ok: z.literal(true) });

export const runItem = z.looseObject({
  id: z.string(),
  scheduleId: z.string(),
  scheduleName: z.string(),
  teamId: z.string(),
  kind: z.string(),
  state: z.enum(RUN_STATES),
  handler: z.string(),
  plannedAt: iso,
  dueAt: iso,
  startedAt: iso.nullable(),
  finishedAt: iso.nullable(),
  latenessMs: z.number().nullable(),
  durationMs: z.number().nullable(),
  attempt: z.number(),
  maxAttempts: z.number(),
  workerId: z.string().nullable(),
});

export const runLog = z.looseObject({
  id: z.number(),
  at: iso,
  attempt: z.number(),
  level: z.string(),
  message: z.string(),
  fields: z.unknown(),
});

export const runTrace = z.looseObject({
  run: z.looseObject({
    id: z.string(),
    scheduleId: z.string(),
    scheduleName: z.string(),
    teamId: z.string(),
    team: z.string(),
    kind: z.string(),
    state: z.enum(RUN_STATES),
    attempt: z.number(),
    maxAttempts: z.number(),
    workerId: z.string().nullable(),
    error: z.string().nullable(),
    timings: z.looseObject({
      plannedAt: iso,
      dueAt: iso,
      startedAt: iso.nullable(),
      finishedAt: iso.nullable(),
      latenessMs: z.number().nullable(),
      durationMs: z.number().nullable(),
    }),
  }),
  events: z.array(z.looseObject({ id: z.number(), at: iso, type: z.string(), message: z.string() })),
  attempts: z.array(
    z.looseObject({ number: z.number(), state: z.string(), startedAt: iso, finishedAt: iso.nullable(), error: z.string().nullable() }),
  ),
  logs: z.array(runLog),
  logsTruncated: z.boolean(),
});

export const scheduleItem = z.looseObject({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  handler: z.string(),
  payload: z.record(z.string(), z.unknown()),
  trigger: z.looseObject({ kind: z.string() }),
  triggerDescription: z.string(),
  timezone: z.string(),
  enabled: z.boolean(),
  paused: z.looseObject({ at: iso, by: z.string().nullable(), reason: z.string().nullable(), until: iso.nullable() }).nullable(),
  revision: z.number(),
});

/** A schedule as the list (and GET /api/schedules/:id) shows it: with its next fire and last run. */
export const scheduleListItem = scheduleItem.extend({
  nextFireAt: iso.nullable(),
  lastRun: z
    .looseObject({
      id: z.string(),
      state: z.enum(RUN_STATES),
      plannedAt: iso,
      finishedAt: iso.nullable(),
      latenessMs: z.number().nullable(),
    })
    .nullable(),
});

export const alertItem = z.looseObject({
  id: z.string(),
  kind: z.enum(ALERT_KINDS),
  severity: z.string(),
  message: z.string(),
  scheduleId: z.string().nullable(),
  scheduleName: z.string().nullable(),
  runId: z.string().nullable(),
  openedAt: iso,
  lastSeenAt: iso,
  resolvedAt: iso.nullable(),
  occurrences: z.number(),
  acknowledgedAt: iso.nullable(),
  acknowledgedBy: z.string().nullable(),
});

/** What the schedule actions (trigger, backfill, pause, resume) answer. */
export const scheduleAction = z.looseObject({ dryRun: z.boolean(), count: z.number(), plannedAt: z.array(iso) });

export const userItem = z.looseObject({ id: z.string(), email: z.string(), name: z.string(), role: z.string() });
export const tokenItem = z.looseObject({
  id: z.string(),
  name: z.string(),
  role: z.string(),
  team: z.object({ id: z.string(), name: z.string() }).nullable(),
  scopes: z.array(z.string()),
});
export const secretItem = z.looseObject({ name: z.string() });
export const silenceItem = z.looseObject({ id: z.string(), kind: z.string() });
export const verifyAnswer = z.looseObject({
  ok: z.boolean(),
  checked: z.number(),
  brokenId: z.number().nullable(),
  problem: z.string().nullable(),
  verifiedAt: iso,
  anchorProblem: z.string().nullable(),
});
