// Turns raw input into a validated schedule (or a 422 naming each bad field). The payload is checked by
// the chosen handler's own zod schema (core/handlers), and its size is bounded: it is copied to every run.
import type { z } from "zod";
import { ValidationError, fieldErrorsFromZod } from "../errors";
import { validateHandlerPayload } from "../handlers/handler-registry";
import { MAX_PAYLOAD_BYTES } from "./schedule-input";

/** Which handlers exist and how each parses its payload. Defaults to the registry in core/handlers. */
export interface HandlerCatalog {
  /** Returns the parsed payload (defaults filled) or throws ValidationError naming `handler` or `payload.*`. */
  validatePayload(handler: string, payload: unknown): unknown;
}

export const registryCatalog: HandlerCatalog = { validatePayload: validateHandlerPayload };

export function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const parsed = schema.safeParse(input);
  if (!parsed.success) throw new ValidationError("Some fields are not valid.", fieldErrorsFromZod(parsed.error.issues));
  return parsed.data;
}

/** Size first (so a huge payload is not parsed field by field), then the handler's schema. */
export function checkPayload(catalog: HandlerCatalog, handler: string, payload: Record<string, unknown>): Record<string, unknown> {
  const bytes = Buffer.byteLength(JSON.stringify(payload));
  if (bytes > MAX_PAYLOAD_BYTES) {
    const message = `Payload is ${Math.ceil(bytes / 1024)} KiB; the limit is ${MAX_PAYLOAD_BYTES / 1024} KiB. Store large data elsewhere and pass a reference.`;
    throw new ValidationError(message, { payload: message }, "payload_too_large");
  }
  return catalog.validatePayload(handler, payload) as Record<string, unknown>;
}
