// The schedules-as-code document: what `GET /api/schedules/export` writes and `POST /api/schedules/apply` reads.
//
//   version: 1
//   schedules:
//     nightly-reconcile:            # the schedule's name (unique among live schedules)
//       handler: ledger.post
//       trigger: { kind: cron, cron: "0 2 * * *", timezone: Europe/Berlin, dst: { gap: shift, repeat: once } }
//       payload: { from: a, to: b, amount: 1, apiKey: { $secret: LEDGER_KEY } }
//       tags: [nightly, team:payments]
//
// It is made to diff well: keys sorted at every level, schedules keyed by name, no ids, revisions or timestamps,
// and a field equal to its default (the API's default for a new schedule) left out — so a file says only what is
// particular about each schedule, and a field left out means "the default", also when applied to an existing one.
import YAML from "yaml";
import { z } from "zod";
import { ValidationError, fieldErrorsFromZod, type FieldErrors } from "../../errors";
import { sameJson } from "../update-schedule";
import { scheduleInputSchema, type ScheduleInput } from "../schedule-input";
import { RUN_SETTING_FIELDS, type Schedule } from "../schedule-record";
import { calendarReferences } from "../../calendars/schedule-calendar-links";
import { runAfterReferences } from "../schedule-dependencies";

export const DOCUMENT_VERSION = 1;
export const MAX_DOCUMENT_SCHEDULES = 5000;

/** One schedule of a document: every settable field but the name (the key), defaults left out. */
export type DocumentEntry = Record<string, unknown>;

export interface SchedulesDocument {
  version: typeof DOCUMENT_VERSION;
  schedules: Record<string, DocumentEntry>;
}

/** The fields a document carries, in the API's names. `enabled` is handled apart (a pause, never a resume). */
export const DOCUMENT_FIELDS = [
  "description",
  "handler",
  "payload",
  "trigger",
  "tags",
  ...RUN_SETTING_FIELDS,
  "startsAt",
  "endsAt",
  "calendars",
  "after",
  "waitDeadlineSeconds",
] as const;
export type DocumentField = (typeof DOCUMENT_FIELDS)[number];

/** The API's defaults, read from the input schema itself so the document and the API never disagree. */
export const INPUT_DEFAULTS: Record<string, unknown> = (() => {
  const parsed = scheduleInputSchema.parse({ name: "defaults", handler: "defaults", trigger: { kind: "interval", everySeconds: 1 } });
  const { name: _n, handler: _h, trigger: _t, ...rest } = parsed;
  return { ...rest, expectRecordsMin: null, latenessP95SloMs: null, latenessMaxMs: null, completionDeadlineSeconds: null };
})();

/** A stored schedule as a document entry: defaults and nulls left out; enabled: false only for a pause meant to last. */
export function entryFromSchedule(s: Schedule): DocumentEntry {
  const entry: DocumentEntry = {};
  for (const f of DOCUMENT_FIELDS) {
    const v = documentValue(s, f);
    if (v === null || v === undefined) continue;
    if (f === "concurrencyLimit" || f === "startRateLimit") {
      // The group's limits are part of what the schedule means whenever it has a group.
      if (s.concurrencyGroup) entry[f] = v;
      continue;
    }
    if (f in INPUT_DEFAULTS && sameJson(v, INPUT_DEFAULTS[f])) continue;
    entry[f] = v;
  }
  // A pause with an until, or by a maintenance window, is a passing state, not part of the schedule's definition.
  if (s.paused && !s.paused.until && !s.maintenanceId) entry.enabled = false;
  return entry;
}

/** A stored schedule's value of a document field; calendars and run-after links as the input names them (by name). */
export function documentValue(s: Schedule, f: DocumentField): unknown {
  if (f === "calendars") return calendarReferences(s.calendars);
  if (f === "after") return runAfterReferences(s.after);
  const raw = (s as unknown as Record<string, unknown>)[f];
  return raw instanceof Date ? raw.toISOString() : raw;
}

/** Keys sorted at every level (payload included): the same schedules always give the same bytes. */
export function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === "object" && !(v instanceof Date)) {
    return Object.fromEntries(
      Object.keys(v as Record<string, unknown>)
        .sort()
        .map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]),
    );
  }
  return v;
}

export function renderDocument(doc: SchedulesDocument, format: "yaml" | "json", notes: string[] = []): string {
  const sorted = sortKeys(doc);
  if (format === "json") return `${JSON.stringify(sorted, null, 2)}\n`;
  const header = [
    "Vigil schedules as code. Apply with: npm run vigil -- apply <this file> (a dry run; --yes applies).",
    "A field left out takes its default; secrets are references: {$secret: NAME}.",
    ...notes,
  ];
  return `${header.map((l) => `# ${l}`).join("\n")}\n${YAML.stringify(sorted, { lineWidth: 0, aliasDuplicateObjects: false })}`;
}

const documentShape = z.strictObject({
  version: z.literal(DOCUMENT_VERSION, { error: `version must be ${DOCUMENT_VERSION}` }),
  schedules: z
    .record(z.string(), z.record(z.string(), z.unknown(), { error: "each schedule must be a mapping of its fields" }), {
      error: "schedules must be a mapping from schedule name to its fields",
    })
    .refine((m) => Object.keys(m).length <= MAX_DOCUMENT_SCHEDULES, { error: `at most ${MAX_DOCUMENT_SCHEDULES} schedules` }),
});

/** A document as text (YAML or JSON; a duplicate name is an error, not "the last one wins") or as a parsed object. */
export function parseDocument(input: unknown): SchedulesDocument {
  let raw = input;
  if (typeof input === "string") {
    try {
      raw = YAML.parse(input, { uniqueKeys: true, maxAliasCount: 0 });
    } catch (err) {
      const message = `The document is not valid YAML or JSON: ${(err as Error).message.split("\n")[0]}`;
      throw new ValidationError(message, { document: message }, "invalid_document");
    }
  }
  const parsed = documentShape.safeParse(raw);
  if (!parsed.success) {
    throw new ValidationError(
      "The document's structure is not valid.",
      prefixFields(fieldErrorsFromZod(parsed.error.issues), "document"),
      "invalid_document",
    );
  }
  return parsed.data as SchedulesDocument;
}

/** One entry validated as a schedule (defaults filled in); errors name the schedule and the field. */
export function parseEntry(name: string, entry: DocumentEntry): ScheduleInput & { enabled: boolean } {
  const parsed = scheduleInputSchema.safeParse({ ...entry, name });
  if (!parsed.success) {
    const fields = fieldErrorsFromZod(parsed.error.issues);
    throw new ValidationError(`Schedule ${name}: ${Object.values(fields)[0] ?? "not valid"}`, prefixFields(fields, `schedules.${name}`));
  }
  return parsed.data;
}

/** { "trigger.cron": m } → { "schedules.x.trigger.cron": m }; "name" (the key itself) → "schedules.x". */
export function prefixFields(fields: FieldErrors | undefined, prefix: string): FieldErrors {
  return Object.fromEntries(
    Object.entries(fields ?? {}).map(([k, v]) => [k === "name" || k === "" || k === "_" ? prefix : `${prefix}.${k}`, v]),
  );
}
