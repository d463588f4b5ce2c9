// Which schedules may refer to a secret: its access rule, one owner for the console (decided when a schedule is
// saved) and the worker (decided again when a run resolves the value). A schedule may use a secret when the rule
// names it or one of its tags, and, if the rule lists handlers, the schedule's handler is one of them. An empty
// rule lets no schedule use the secret. The rule is an object so other kinds of grant (teams) can join it.
import { z } from "zod";
import { SCHEDULE_NAME_PATTERN, TAG_PATTERN } from "../schedules/schedule-input";

const MAX_ENTRIES = 200;

const list = (label: string, pattern: RegExp, example: string) =>
  z
    .array(
      z
        .string()
        .trim()
        .regex(pattern, { error: (i) => `${label} "${String(i.input)}" is not valid (e.g. ${example})` }),
      {
        error: `${label}s must be a list of strings`,
      },
    )
    .max(MAX_ENTRIES, { error: `At most ${MAX_ENTRIES} ${label.toLowerCase()}s` })
    .transform((xs) => [...new Set(xs)].sort())
    .default([]);

export const secretAccessSchema = z.strictObject({
  /** Schedules named here may use the secret. */
  schedules: list("Schedule name", SCHEDULE_NAME_PATTERN, "nightly-reconcile"),
  /** Schedules carrying any of these tags may use the secret. */
  tags: list("Tag", TAG_PATTERN, "team:payments"),
  /** If not empty: only schedules running one of these handlers, whatever their name or tags. */
  handlers: list("Handler", /^[a-z][a-z0-9_-]*(\.[a-z0-9_-]+)*$/, "http.request"),
});

export type SecretAccess = z.output<typeof secretAccessSchema>;

export const NO_ACCESS: SecretAccess = { schedules: [], tags: [], handlers: [] };

/** The rule as stored (a column written by an older release, or by hand, reads as no access). */
export function readSecretAccess(stored: unknown): SecretAccess {
  const parsed = secretAccessSchema.safeParse(stored ?? {});
  return parsed.success ? parsed.data : NO_ACCESS;
}

export interface ScheduleIdentity {
  name: string;
  tags: string[];
  handler: string;
}

export function mayUseSecret(rule: SecretAccess, s: ScheduleIdentity): boolean {
  const who = rule.schedules.includes(s.name) || s.tags.some((t) => rule.tags.includes(t));
  return who && (rule.handlers.length === 0 || rule.handlers.includes(s.handler));
}

/** One sentence for people: "schedules a, b or tags team:payments; handlers http.request only". */
export function describeSecretAccess(rule: SecretAccess): string {
  const who = [
    rule.schedules.length > 0 ? `schedule${rule.schedules.length > 1 ? "s" : ""} ${rule.schedules.join(", ")}` : "",
    rule.tags.length > 0 ? `schedules tagged ${rule.tags.join(", ")}` : "",
  ].filter(Boolean);
  if (who.length === 0) return "no schedule";
  return `${who.join(" or ")}${rule.handlers.length > 0 ? `, running ${rule.handlers.join(" or ")} only` : ""}`;
}

/** Why s may not use the secret: the message a save answers and a refused run records. */
export function secretRefusal(secret: string, rule: SecretAccess, s: ScheduleIdentity): string {
  const tags = s.tags.length > 0 ? `tags ${s.tags.join(", ")}` : "no tags";
  return (
    `Secret ${secret} may not be used by schedule ${s.name} (handler ${s.handler}, ${tags}): its rule allows ${describeSecretAccess(rule)}. ` +
    "An admin changes the rule under Admin → Secrets."
  );
}
