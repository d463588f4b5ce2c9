// A handler is a named job type: a zod payload schema (checked when a schedule is saved and again
// before each attempt) and a run function. The spec half (name, description, payload) is what the
// console needs; the run half is loaded only inside the worker's isolated threads.
import type { z } from "zod";
import type { HandlerContext } from "./handler-context";
import type { HandlerResult } from "./handler-result";

export interface HandlerSpec<S extends z.ZodType = z.ZodType> {
  name: string;
  description: string;
  payload: S;
}

export interface HandlerDefinition<S extends z.ZodType = z.ZodType> extends HandlerSpec<S> {
  run(payload: z.output<S>, ctx: HandlerContext): Promise<HandlerResult | void>;
}

export const HANDLER_NAME_PATTERN = /^[a-z][a-z0-9]*(\.[a-z][a-z0-9_-]*)+$/;

export function defineHandlerSpec<S extends z.ZodType>(spec: HandlerSpec<S>): HandlerSpec<S> {
  if (!HANDLER_NAME_PATTERN.test(spec.name)) throw new Error(`Handler name "${spec.name}" must look like "area.action"`);
  return spec;
}

export function defineHandler<S extends z.ZodType>(def: HandlerDefinition<S>): HandlerDefinition<S> {
  defineHandlerSpec(def);
  return def;
}
