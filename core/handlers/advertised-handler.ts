// What a worker tells the database about each handler it serves: the spec as the console needs it
// (name, description, JSON Schema of the payload) and a hash that changes whenever the handler's code
// or schema does, so the console can tell two workers running different versions apart.
import crypto from "node:crypto";
import { z } from "zod";
import type { HandlerSpec } from "./define-handler";

export interface AdvertisedHandler {
  name: string;
  description: string;
  /** JSON Schema (draft 2020-12) of the payload as a caller writes it (defaults make fields optional). */
  payloadSchema: Record<string, unknown>;
  hash: string;
  /** "builtin", or the module file or package the handler was loaded from. */
  source: string;
  builtin: boolean;
  /** Runs a program on the worker's host (HandlerSpec.runsPrograms): using it needs the program permission. */
  runsPrograms: boolean;
}

export function payloadJsonSchema(spec: HandlerSpec): Record<string, unknown> {
  return z.toJSONSchema(spec.payload, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
}

/** code: the module's source text (or, for built-ins, the release version). */
export function describeHandler(spec: HandlerSpec, opts: { source: string; builtin: boolean; code: string }): AdvertisedHandler {
  const payloadSchema = payloadJsonSchema(spec);
  const hash = crypto
    .createHash("sha256")
    .update(
      JSON.stringify({
        name: spec.name,
        description: spec.description,
        payloadSchema,
        ...(spec.runsPrograms ? { runsPrograms: true } : {}),
      }),
    )
    .update("\0")
    .update(opts.code)
    .digest("hex")
    .slice(0, 16);
  return {
    name: spec.name,
    description: spec.description,
    payloadSchema,
    hash,
    source: opts.source,
    builtin: opts.builtin,
    runsPrograms: spec.runsPrograms === true,
  };
}
