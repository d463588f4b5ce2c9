// A handler is a named job type: a zod payload schema (checked when a schedule is saved and again
// before each attempt) and a run function. The spec half (name, description, payload) is what the
// console needs; the run half is loaded only inside the worker's isolated threads.
// Users write handlers against sdk/index.ts (imported as "vigil/sdk"), which re-exports defineHandler.
import type { z } from "zod";
import type { HandlerContext } from "./handler-context";
import type { HandlerResult } from "./handler-result";

export interface HandlerSpec<S extends z.ZodType = z.ZodType> {
  name: string;
  description: string;
  payload: S;
  /**
   * Runs a program on the worker's host (spawns processes, a shell, an interpreter). Saving, triggering or
   * re-running a schedule of such a handler needs the program permission, and a worker set to refuse programs
   * (VIGIL_WORKER_PROGRAMS=refuse) does not serve it.
   */
  runsPrograms?: boolean;
}

export interface HandlerDefinition<S extends z.ZodType = z.ZodType> extends HandlerSpec<S> {
  run(payload: z.output<S>, ctx: HandlerContext): Promise<HandlerResult | void>;
}

export const HANDLER_NAME_PATTERN = /^[a-z][a-z0-9]*(\.[a-z][a-z0-9_-]*)+$/;

/**
 * Marks what defineHandler made, so the loader tells a handler export from a helper export. A registered
 * symbol (Symbol.for), not a module-local one: a user's module that reached the SDK through another path
 * (a copy under their node_modules) still produces handlers the worker recognises.
 */
export const HANDLER_BRAND = Symbol.for("vigil.handler");

export function defineHandlerSpec<S extends z.ZodType>(spec: HandlerSpec<S>): HandlerSpec<S> {
  if (typeof spec?.name !== "string" || !HANDLER_NAME_PATTERN.test(spec.name)) {
    throw new Error(`Handler name ${JSON.stringify(spec?.name)} must look like "area.action" (lower case, e.g. "payouts.send")`);
  }
  if (typeof spec.description !== "string") throw new Error(`Handler "${spec.name}" needs a description string`);
  if (spec.runsPrograms !== undefined && typeof spec.runsPrograms !== "boolean") {
    throw new Error(`Handler "${spec.name}": runsPrograms must be true or false`);
  }
  if (!spec.payload || typeof (spec.payload as { safeParse?: unknown }).safeParse !== "function") {
    throw new Error(`Handler "${spec.name}" needs a zod payload schema (e.g. z.object({...}) from "vigil/sdk")`);
  }
  return spec;
}

export function defineHandler<S extends z.ZodType>(def: HandlerDefinition<S>): HandlerDefinition<S> {
  defineHandlerSpec(def);
  if (typeof def.run !== "function") throw new Error(`Handler "${def.name}" needs a run(payload, ctx) function`);
  Object.defineProperty(def, HANDLER_BRAND, { value: true, enumerable: false });
  return def;
}

export function isHandlerDefinition(v: unknown): v is HandlerDefinition {
  return typeof v === "object" && v !== null && (v as Record<symbol, unknown>)[HANDLER_BRAND] === true;
}
