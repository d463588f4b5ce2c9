// Turns raw input into a validated schedule (or a 422 naming each bad field). The payload is checked against
// the chosen handler's schema (core/handlers/handler-registry.ts), and its size is bounded: it is copied to every run.
import type { z } from "zod";
import { ValidationError, fieldErrorsFromZod } from "../errors";
import type { Queryable } from "../db/pool";
import { validateHandlerPayload } from "../handlers/handler-registry";
import { MAX_PAYLOAD_BYTES } from "./schedule-input";
import { MASKED } from "../secrets/mask-credentials";

export function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const parsed = schema.safeParse(input);
  if (!parsed.success) throw new ValidationError("Some fields are not valid.", fieldErrorsFromZod(parsed.error.issues));
  return parsed.data;
}

/** Size first (so a huge payload is not parsed field by field), then the handler's schema. */
export async function checkPayload(db: Queryable, handler: string, payload: Record<string, unknown>): Promise<Record<string, unknown>> {
  const bytes = Buffer.byteLength(JSON.stringify(payload));
  if (bytes > MAX_PAYLOAD_BYTES) {
    const message = `Payload is ${Math.ceil(bytes / 1024)} KiB; the limit is ${MAX_PAYLOAD_BYTES / 1024} KiB. Store large data elsewhere and pass a reference.`;
    throw new ValidationError(message, { payload: message }, "payload_too_large");
  }
  const masked = maskedPaths(payload);
  if (masked.length > 0) {
    const message = `This is a masked value (${MASKED}), not the real one: enter the value, or better, store it as a secret and write {"$secret": "NAME"}`;
    throw new ValidationError(
      "The payload holds masked values.",
      Object.fromEntries(masked.map((p) => [p ? `payload.${p}` : "payload", message])),
    );
  }
  return (await validateHandlerPayload(db, handler, payload)) as Record<string, unknown>;
}

function maskedPaths(v: unknown, path: string[] = []): string[] {
  if (v === MASKED) return [path.join(".")];
  if (Array.isArray(v)) return v.flatMap((x, i) => maskedPaths(x, [...path, String(i)]));
  if (v && typeof v === "object") return Object.entries(v).flatMap(([k, x]) => maskedPaths(x, [...path, k]));
  return [];
}
