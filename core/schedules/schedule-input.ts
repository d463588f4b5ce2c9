// What an operator (form or API) sends to create or edit a schedule, with messages a person can act on.
// The handler's payload is checked against that handler's own schema afterwards (validate-schedule-input.ts).
import { z } from "zod";
import { triggerSchema } from "./trigger";
import { webhookFormatSchema } from "../alerts/webhook/webhook-format";
import { httpUrlSchema } from "../http/http-url";
import { scheduleCalendarsSchema } from "../calendars/calendar-input";
import { runAfterSchema } from "./run-after-input";

export const SCHEDULE_NAME_PATTERN = /^[a-z0-9][a-z0-9._-]{0,79}$/;
/** A tag: lowercase, may carry a namespace ("team:payments", "env.prod"). */
export const TAG_PATTERN = /^[a-z0-9][a-z0-9._:-]{0,62}$/;
export const MAX_TAGS = 20;
export const OVERLAP_POLICIES = ["skip", "buffer_one", "allow", "cancel_running"] as const;
export const MISFIRE_POLICIES = ["skip", "run_once", "catch_up"] as const;
export type OverlapPolicy = (typeof OVERLAP_POLICIES)[number];
export type MisfirePolicy = (typeof MISFIRE_POLICIES)[number];

/** Payloads are stored with every occurrence; this keeps a runs table of millions of rows sane. */
export const MAX_PAYLOAD_BYTES = 64 * 1024;

const wholeNumber = (label: string, min: number, max: number, unit = "") =>
  z
    .number({ error: `${label} must be a number${unit ? ` of ${unit}` : ""}` })
    .int({ error: (i) => `${label} must be a whole number${unit ? ` of ${unit}` : ""}; got ${String(i.input)}` })
    .min(min, { error: (i) => `${label} must be at least ${min}${unit ? ` ${unit}` : ""}; got ${String(i.input)}` })
    .max(max, { error: (i) => `${label} must be at most ${max}${unit ? ` ${unit}` : ""}; got ${String(i.input)}` });

const optionalWhole = (label: string, min: number, max: number, unit = "") => wholeNumber(label, min, max, unit).nullable().optional();

const slug = (label: string) =>
  z.string({ error: `${label} must be a string` }).regex(SCHEDULE_NAME_PATTERN, {
    error: (i) =>
      `${label} "${String(i.input)}" must be 1–80 characters of lowercase letters, digits, ".", "_" or "-", starting with a letter or digit (e.g. nightly-reconcile)`,
  });

/** A tag as the lists filter it (?tag=): the same shape a schedule's tags must have. */
export const tagSchema = z.string({ error: "Tag must be a string" }).regex(TAG_PATTERN, {
  error: (i) =>
    `Tag "${String(i.input)}" must be 1–63 characters of lowercase letters, digits, ".", "_", ":" or "-", starting with a letter or digit (e.g. team:payments)`,
});

/** A list filter's tags, as a query parameter carries them ("a,b" or the parameter repeated). */
export const tagListSchema = z
  .string()
  .transform((s) =>
    s
      .split(",")
      .map((x) => x.trim())
      .filter(Boolean),
  )
  .pipe(z.array(tagSchema).max(MAX_TAGS, { error: `At most ${MAX_TAGS} tags` }));

/** A schedule's tags: a small set, stored deduplicated and sorted so equal sets compare (and export) equal. */
const tags = z
  .array(tagSchema, { error: 'Tags must be a list of strings, e.g. ["team:payments", "nightly"]' })
  .transform((list) => [...new Set(list)].sort())
  .refine((list) => list.length <= MAX_TAGS, { error: `At most ${MAX_TAGS} tags` });

const FAILURE_THRESHOLD_RANGE =
  "0 (no failure alerts for this schedule) to 1000, or null for the global default (VIGIL_ALERT_FAILURE_THRESHOLD)";
const failureAlertThreshold = z
  .number({ error: `Failure alert threshold must be a number of consecutive failures: ${FAILURE_THRESHOLD_RANGE}` })
  .int({ error: (i) => `Failure alert threshold must be a whole number of failures; got ${String(i.input)}` })
  .min(0, { error: (i) => `Failure alert threshold must be ${FAILURE_THRESHOLD_RANGE}; got ${String(i.input)}` })
  .max(1000, { error: (i) => `Failure alert threshold must be ${FAILURE_THRESHOLD_RANGE}; got ${String(i.input)}` });

const webhookUrl = httpUrlSchema("Webhook URL", "https://hooks.example.com/vigil");

/** A start or end date: an ISO 8601 date-time with an offset, stored as the instant (normalised to UTC ISO). */
const instant = (label: string) =>
  z.iso
    .datetime({ offset: true, error: `${label} must be an ISO 8601 date-time with an offset, e.g. 2026-12-01T09:00:00Z` })
    .transform((s) => new Date(s).toISOString())
    .nullable()
    .optional();

/** endsAt after startsAt, when both are known (an edit checks the merged pair in update-schedule.ts). */
export function datesProblem(startsAt: string | Date | null | undefined, endsAt: string | Date | null | undefined): string | null {
  if (!startsAt || !endsAt) return null;
  const start = new Date(startsAt);
  const end = new Date(endsAt);
  if (end.getTime() > start.getTime()) return null;
  return `End date (${end.toISOString()}) must be after the start date (${start.toISOString()})`;
}

/** Every settable field, without defaults: shared by create (with defaults) and edit (all optional). */
const fields = {
  name: slug("Name"),
  /** The owning team, by name or id (core/teams/resolve-team.ts): by default the caller's only team. */
  team: z
    .string({ error: "Team must be a team's name or id" })
    .min(1, { error: "Team must be a team's name or id" })
    .max(100, { error: "Team must be a team's name or id" })
    .optional(),
  description: z.string({ error: "Description must be a string" }).max(2000, { error: "Description must be at most 2000 characters" }),
  handler: z
    .string({ error: 'Handler must be the name of a registered handler, e.g. "ledger.post"' })
    .min(1, { error: "Choose a handler" })
    .max(200, { error: "Handler name must be at most 200 characters" }),
  payload: z.record(z.string(), z.unknown(), { error: "Payload must be a JSON object (use {} for none)" }),
  trigger: triggerSchema,
  enabled: z.boolean({ error: "Enabled must be true or false" }),
  overlapPolicy: z.enum(OVERLAP_POLICIES, { error: `Overlap policy must be one of ${OVERLAP_POLICIES.join(", ")}` }),
  misfirePolicy: z.enum(MISFIRE_POLICIES, { error: `Misfire policy must be one of ${MISFIRE_POLICIES.join(", ")}` }),
  catchUpLimit: wholeNumber("Catch-up limit", 0, 1000, "runs"),
  startingDeadlineSeconds: wholeNumber("Starting deadline", 1, 7 * 86_400, "seconds"),
  timeoutSeconds: wholeNumber("Timeout", 1, 7 * 86_400, "seconds"),
  graceSeconds: wholeNumber("Grace period", 0, 3600, "seconds"),
  retryMaxAttempts: wholeNumber("Max attempts", 1, 100),
  retryBaseSeconds: wholeNumber("Retry base delay", 1, 86_400, "seconds"),
  retryMaxSeconds: wholeNumber("Retry max delay", 1, 7 * 86_400, "seconds"),
  concurrencyGroup: slug("Concurrency group").nullable(),
  /** The group's limit, shared by every schedule in the group (upserted into concurrency_groups). */
  concurrencyLimit: wholeNumber("Concurrency limit", 1, 10_000, "runs").optional(),
  /**
   * The group's start-rate limit, shared like its concurrency limit: at most maxStarts starts in any window of
   * perSeconds seconds (core/runs/claim/start-rate-limit.ts). Left out keeps the group's; null removes it.
   */
  startRateLimit: z
    .strictObject(
      {
        maxStarts: wholeNumber("Start-rate limit", 1, 10_000, "starts"),
        perSeconds: wholeNumber("Start-rate window", 1, 86_400, "seconds"),
      },
      { error: "Start-rate limit must be {maxStarts, perSeconds} or null" },
    )
    .nullable()
    .optional(),
  startJitterMs: wholeNumber("Start jitter", 0, 3_600_000, "milliseconds"),
  expectRecordsMin: optionalWhole("Expected records (minimum)", 0, 2_000_000_000),
  latenessP95SloMs: optionalWhole("Lateness p95 objective", 0, 86_400_000, "milliseconds"),
  latenessMaxMs: optionalWhole("Maximum lateness", 0, 86_400_000, "milliseconds"),
  completionDeadlineSeconds: optionalWhole("Completion deadline", 1, 7 * 86_400, "seconds"),
  /** Consecutive failures before the schedule alerts; 0 = never on failures; null = VIGIL_ALERT_FAILURE_THRESHOLD. */
  failureAlertThreshold: failureAlertThreshold.nullable().optional(),
  /** Days this schedule's finished runs are kept; null = VIGIL_RETENTION_RUNS_DAYS (core/retention/). */
  retentionDays: optionalWhole("Run retention", 1, 3650, "days"),
  webhookUrl: webhookUrl.nullable().optional(),
  webhookFormat: webhookFormatSchema,
  tags,
  /** No fires before this instant (core/schedules/fire-plan.ts); null = from creation. */
  startsAt: instant("Start date"),
  /** No fires after this instant; the schedule shows as ended afterwards. null = no end. */
  endsAt: instant("End date"),
  /** Business calendars it follows, in order: [{calendar: "<name or id>", policy: "skip" | "shift_previous" | "shift_next"}]. */
  calendars: scheduleCalendarsSchema,
  /** Schedules it runs after: [{schedule: "<name or id>", condition, mapping, mappingTimezone?}] (core/runs/chain/). */
  after: runAfterSchema,
  /** How long an occurrence waits for its upstream occurrences, from its due time, before it is recorded missed. */
  waitDeadlineSeconds: wholeNumber("Wait deadline", 1, 7 * 86_400, "seconds"),
};

function checkRetryDelays(
  v: { retryBaseSeconds?: number; retryMaxSeconds?: number; startsAt?: string | null; endsAt?: string | null },
  ctx: z.RefinementCtx,
): void {
  const dates = datesProblem(v.startsAt, v.endsAt);
  if (dates) ctx.addIssue({ code: "custom", path: ["endsAt"], message: dates });
  if (v.retryBaseSeconds !== undefined && v.retryMaxSeconds !== undefined && v.retryMaxSeconds < v.retryBaseSeconds) {
    ctx.addIssue({
      code: "custom",
      path: ["retryMaxSeconds"],
      message: `Retry max delay (${v.retryMaxSeconds} s) must be at least the base delay (${v.retryBaseSeconds} s)`,
    });
  }
}

export const scheduleInputSchema = z
  .strictObject({
    ...fields,
    description: fields.description.default(""),
    payload: fields.payload.default({}),
    enabled: fields.enabled.default(true),
    overlapPolicy: fields.overlapPolicy.default("skip"),
    misfirePolicy: fields.misfirePolicy.default("run_once"),
    catchUpLimit: fields.catchUpLimit.default(10),
    startingDeadlineSeconds: fields.startingDeadlineSeconds.default(60),
    timeoutSeconds: fields.timeoutSeconds.default(300),
    graceSeconds: fields.graceSeconds.default(5),
    retryMaxAttempts: fields.retryMaxAttempts.default(1),
    retryBaseSeconds: fields.retryBaseSeconds.default(2),
    retryMaxSeconds: fields.retryMaxSeconds.default(300),
    webhookFormat: fields.webhookFormat.default("vigil"),
    concurrencyGroup: fields.concurrencyGroup.default(null),
    startJitterMs: fields.startJitterMs.default(0),
    tags: fields.tags.default([]),
    calendars: fields.calendars.default([]),
    after: fields.after.default([]),
    waitDeadlineSeconds: fields.waitDeadlineSeconds.default(3600),
  })
  .superRefine(checkRetryDelays);

export type ScheduleInput = z.output<typeof scheduleInputSchema>;
/** What a client may send: defaults may be left out. */
export type ScheduleInputRaw = z.input<typeof scheduleInputSchema>;

/** An edit: any subset of the fields, plus the revision the editor saw (a stale one is refused with 409). */
export const scheduleUpdateSchema = z
  .strictObject(fields)
  .partial()
  .extend({
    revision: z.number({ error: "Revision must be the schedule's revision number you edited" }).int().min(1),
    /** Answer what the edit would change (next fires before/after, superseded runs) and write nothing. */
    dryRun: z.boolean({ error: "dryRun must be true or false" }).optional(),
  })
  .superRefine(checkRetryDelays);

export type ScheduleUpdate = z.output<typeof scheduleUpdateSchema>;
