// The payload editor's live check: is it JSON, is it an object, and does it fit the handler's advertised
// JSON Schema — with the same validator the server uses when the schedule is saved
// (core/handlers/json-schema-validate.ts), so the editor and the API never disagree.
import { validatePayloadWithSecretRefs, type SchemaProblem } from "@/core/handlers/json-schema-validate";

/** The parts of a JSON Schema the editor reads to describe a handler's fields (validation reads all of it). */
export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  enum?: unknown[];
  const?: unknown;
  items?: JsonSchema;
  description?: string;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
}

export type PayloadProblem = SchemaProblem;

/** Problems with `text` as a payload for `schema`; an empty list means it fits. */
export function checkPayload(text: string, schema: JsonSchema | undefined): PayloadProblem[] {
  let value: unknown;
  try {
    value = text.trim() === "" ? {} : JSON.parse(text);
  } catch (err) {
    return [{ path: "", message: `Not valid JSON: ${(err as Error).message}` }];
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    return [{ path: "", message: "The payload must be a JSON object, e.g. {}" }];
  if (!schema) return [];
  // {"$secret": "NAME"} stands for a string: the server checks the secret exists when the schedule is saved.
  return validatePayloadWithSecretRefs(schema as Record<string, unknown>, value);
}
