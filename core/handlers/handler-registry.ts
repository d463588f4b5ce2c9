// The handler registry: which job types exist and what payload each accepts. The scheduling code
// validates schedule payloads here; the worker looks up the same names to run them.
import { z } from "zod";
import { ValidationError, fieldErrorsFromZod } from "../errors";
import type { HandlerSpec } from "./define-handler";
import { BUILTIN_HANDLER_SPECS } from "./builtin-handler-specs";

const registry = new Map<string, HandlerSpec>(BUILTIN_HANDLER_SPECS.map((s) => [s.name, s as HandlerSpec]));

/** Adds a custom handler's spec (its run half must be registered in the worker under the same name). */
export function registerHandlerSpec(spec: HandlerSpec): void {
  if (registry.has(spec.name)) throw new Error(`Handler "${spec.name}" is already registered`);
  registry.set(spec.name, spec);
}

export function getHandlerDefinition(name: string): HandlerSpec | undefined {
  return registry.get(name);
}

export interface HandlerListing {
  name: string;
  description: string;
  /** JSON Schema of the payload as a caller writes it (defaults make fields optional). */
  payloadSchema: Record<string, unknown>;
}

export function listHandlers(): HandlerListing[] {
  return [...registry.values()]
    .map((s) => ({
      name: s.name,
      description: s.description,
      payloadSchema: z.toJSONSchema(s.payload, { io: "input", unrepresentable: "any" }) as Record<string, unknown>,
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * Parses a payload with its handler's schema. Throws ValidationError naming the field
 * (`handler`, or `payload.<path>`) so a form can show the message next to it.
 */
export function validateHandlerPayload(handler: string, payload: unknown): unknown {
  const spec = registry.get(handler);
  if (!spec) {
    const known = [...registry.keys()].sort().join(", ");
    throw new ValidationError(`Unknown handler "${handler}".`, { handler: `Unknown handler "${handler}"; registered handlers: ${known}` });
  }
  const parsed = spec.payload.safeParse(payload ?? {});
  if (!parsed.success) {
    const fields: Record<string, string> = {};
    for (const [k, v] of Object.entries(fieldErrorsFromZod(parsed.error.issues))) fields[k === "_" ? "payload" : `payload.${k}`] = v;
    throw new ValidationError(`The payload does not fit handler ${handler}.`, fields);
  }
  return parsed.data;
}
