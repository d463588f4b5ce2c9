// Validates a payload against a handler's advertised JSON Schema (any draft the schema declares; 2020-12
// by default, which is what zod emits). One validator for the server (saving a schedule for a handler
// loaded from the user's code) and the browser's payload editor, so both say the same thing.
// @cfworker/json-schema interprets the schema instead of compiling it to code, so it runs under the
// console's Content-Security-Policy (no 'unsafe-eval'), unlike code-generating validators.
import { Validator, type Schema, type SchemaDraft } from "@cfworker/json-schema";
import { findSecretRefs, replaceSecretRefs } from "../secrets/secret-refs";

export interface SchemaProblem {
  /** Dotted path into the payload ("amount", "items.0.id"); "" for the payload itself. */
  path: string;
  message: string;
  /** The JSON Schema keyword that failed ("type", "format", "pattern"…). */
  keyword?: string;
}

const DRAFTS: [RegExp, SchemaDraft][] = [
  [/draft-04/, "4"],
  [/draft-07/, "7"],
  [/2019-09/, "2019-09"],
  [/2020-12/, "2020-12"],
];

/** Keywords whose error only says "a child did not match": the child's own error says what is wrong. */
const AGGREGATE = new Set([
  "properties",
  "items",
  "prefixItems",
  "false",
  "$ref",
  "allOf",
  "dependentSchemas",
  "unevaluatedProperties",
  "unevaluatedItems",
  "contains",
]);

const cache = new Map<string, Validator>();

function validatorFor(schema: Record<string, unknown>): Validator {
  const key = JSON.stringify(schema);
  let v = cache.get(key);
  if (!v) {
    const declared = typeof schema.$schema === "string" ? schema.$schema : "";
    const draft = DRAFTS.find(([re]) => re.test(declared))?.[1] ?? "2020-12";
    v = new Validator(schema as Schema, draft, false);
    if (cache.size > 200) cache.clear();
    cache.set(key, v);
  }
  return v;
}

function dotted(instanceLocation: string): string {
  return instanceLocation
    .replace(/^#\/?/, "")
    .split("/")
    .filter(Boolean)
    .map((p) => decodeURIComponent(p.replace(/~1/g, "/").replace(/~0/g, "~")))
    .join(".");
}

/** Problems of value against schema, at most one per path, leaf errors only; [] when it fits. */
export function validateAgainstSchema(schema: Record<string, unknown>, value: unknown): SchemaProblem[] {
  const result = validatorFor(schema).validate(value);
  if (result.valid) return [];
  const out = new Map<string, SchemaProblem>();
  for (const e of result.errors) {
    if (AGGREGATE.has(e.keyword)) continue;
    let path = dotted(e.instanceLocation);
    let message = e.error.replace(/\.$/, "");
    if (e.keyword === "additionalProperties") {
      const prop = /Property "(.*)" does not match/.exec(e.error)?.[1];
      if (prop !== undefined) {
        path = path ? `${path}.${prop}` : prop;
        message = "is not a field of this handler's payload";
      }
    }
    if (!out.has(path)) out.set(path, { path, message: path ? `${path}: ${message}` : message, keyword: e.keyword });
  }
  if (out.size === 0) out.set("", { path: "", message: "The payload does not fit the handler's schema" });
  return [...out.values()];
}

/**
 * validateAgainstSchema for a payload that may hold secret references ({"$secret": "NAME"}): each stands for a
 * string whose content is unknown until run time, so only "is a string allowed here" is checked at its place.
 */
export function validatePayloadWithSecretRefs(schema: Record<string, unknown>, value: unknown): SchemaProblem[] {
  const refPaths = new Set(findSecretRefs(value).map((r) => r.path));
  if (refPaths.size === 0) return validateAgainstSchema(schema, value);
  return validateAgainstSchema(
    schema,
    replaceSecretRefs(value, () => "secret"),
  )
    .filter((p) => !refPaths.has(p.path) || p.keyword === "type")
    .map((p) => (refPaths.has(p.path) ? { ...p, message: `${p.message} (a secret reference stands for a string)` } : p));
}
