import { z } from "zod";
import { ValidationError } from "../errors";
import { explainCronProblem } from "./explain-cron-problem";
import { isKnownTimeZone } from "./zone-clock";

export const MAX_INTERVAL_SECONDS = 31 * 86_400;

const ISO_EXAMPLE = "e.g. 2026-12-01T09:00:00Z or 2026-12-01T10:00:00+01:00";

function isoInstant(what: string) {
  return z.iso.datetime({
    offset: true,
    error: (issue) =>
      typeof issue.input === "string"
        ? `${what} "${issue.input}" is not an ISO 8601 date-time with seconds and a UTC offset (${ISO_EXAMPLE})`
        : `${what} must be an ISO 8601 date-time string (${ISO_EXAMPLE})`,
  });
}

/** Why a time zone name cannot be used, or null. */
export function explainTimeZoneProblem(zone: string): string | null {
  // croner reads an empty zone as the host's zone, so a schedule would silently follow whichever server ran it.
  if (zone.trim() === "") return "Time zone is empty; use an IANA name such as Europe/Berlin, or UTC";
  if (/^[+-]\d/.test(zone)) {
    return `Time zone "${zone}" is a fixed offset; use an IANA name such as Europe/Berlin so DST is followed, or UTC`;
  }
  if (!isKnownTimeZone(zone)) return `Unknown time zone "${zone}"; use an IANA name such as Europe/Berlin`;
  return null;
}

/** Six fields with lists and ranges fit easily; a longer "expression" is a mistake, not a schedule. */
export const MAX_CRON_CHARS = 200;

const cronExpressionSchema = z
  .string({ error: 'Cron expression must be a string such as "*/15 * * * *"' })
  // abort: the parser never sees an over-long expression.
  .max(MAX_CRON_CHARS, {
    error: (i) => `Cron expression must be at most ${MAX_CRON_CHARS} characters; got ${String((i.input as string).length)}`,
    abort: true,
  })
  .superRefine((expr, ctx) => {
    const problem = explainCronProblem(expr);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  });

export const timeZoneSchema = z
  .string({ error: "Time zone must be a string with an IANA name such as Europe/Berlin" })
  .max(64, { error: "Time zone must be at most 64 characters: an IANA name such as Europe/Berlin", abort: true })
  .superRefine((zone, ctx) => {
    const problem = explainTimeZoneProblem(zone);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  });

export const dstPolicySchema = z.strictObject({
  /** A fixed time that does not exist (clocks jump forward): run at the first valid instant after it, or not at all. */
  gap: z.enum(["shift", "skip"], { error: 'DST gap policy must be "shift" or "skip"' }).default("shift"),
  /** A fixed time that happens twice (clocks go back): run at the first occurrence only, or at both. */
  repeat: z.enum(["once", "twice"], { error: 'DST repeat policy must be "once" or "twice"' }).default("once"),
});

export const cronTriggerSchema = z.strictObject({
  kind: z.literal("cron"),
  cron: cronExpressionSchema,
  timezone: timeZoneSchema,
  dst: dstPolicySchema.default({ gap: "shift", repeat: "once" }),
});

export const intervalTriggerSchema = z.strictObject({
  kind: z.literal("interval"),
  everySeconds: z
    .number({ error: "Interval (everySeconds) must be a number of seconds, e.g. 30" })
    .int({ error: (issue) => `Interval must be a whole number of seconds; got ${String(issue.input)}` })
    .min(1, { error: (issue) => `Interval must be at least 1 second; got ${String(issue.input)}` })
    .max(MAX_INTERVAL_SECONDS, {
      error: (issue) => `Interval must be at most 31 days (${MAX_INTERVAL_SECONDS} seconds); got ${String(issue.input)}`,
    }),
  /** Fires at anchor + k × everySeconds; without it the schedule's creation time is the anchor. */
  anchor: isoInstant("Interval anchor").optional(),
});

export const onceTriggerSchema = z.strictObject({
  kind: z.literal("once"),
  at: isoInstant("One-off time"),
});

export const triggerSchema = z.discriminatedUnion("kind", [cronTriggerSchema, intervalTriggerSchema, onceTriggerSchema], {
  error: (issue) => (issue.code === "invalid_union" ? 'Trigger kind must be "cron", "interval" or "once"' : undefined),
});

export type Trigger = z.infer<typeof triggerSchema>;
/** What an API client sends: `dst` and its fields may be left out. */
export type TriggerInput = z.input<typeof triggerSchema>;
export type CronTrigger = z.infer<typeof cronTriggerSchema>;
export type IntervalTrigger = z.infer<typeof intervalTriggerSchema>;
export type OnceTrigger = z.infer<typeof onceTriggerSchema>;

/**
 * Rejects a one-off trigger whose time is not after `now`. `now` is the database clock, never this process's:
 * a worker with a skewed clock must not accept or refuse a one-off differently.
 */
export function assertOnceInFuture(trigger: Trigger, now: Date): void {
  if (trigger.kind !== "once") return;
  if (Date.parse(trigger.at) > now.getTime()) return;
  const message = `The one-off time ${trigger.at} is in the past (database time is ${now.toISOString()})`;
  throw new ValidationError(message, { "trigger.at": message });
}
