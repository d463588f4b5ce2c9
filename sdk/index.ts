// The handler SDK: the one public entry point for writing Vigil jobs. Import it as "vigil/sdk" from a
// handlers folder (the worker resolves that name for modules it loads, wherever they live):
//
//   import { defineHandler, z } from "vigil/sdk";
//   export const sendPayouts = defineHandler({
//     name: "payouts.send",
//     description: "Sends the day's payouts",
//     payload: z.object({ batch: z.string() }),
//     async run(payload, ctx) { ...; return { records: n }; },
//   });
//
// Everything a handler needs is here; nothing under core/ is part of the contract.
export { defineHandler } from "../core/handlers/define-handler.ts";
export type { HandlerDefinition } from "../core/handlers/define-handler.ts";
export type {
  HandlerContext,
  HandlerDb,
  HandlerTransactionalDb,
  HandlerQueryResult,
  HandlerLogLevel,
  OnceOutcome,
} from "../core/handlers/handler-context.ts";
export type { HandlerResult } from "../core/handlers/handler-result.ts";
/** The zod the worker validates payloads with: use this one, so schemas and the worker agree. */
export { z } from "zod";
