// What a handler returns: how much work it did (records) and a short human summary. Parsed with
// zod at the boundary, so a handler returning nonsense fails its attempt instead of storing it.
import { z } from "zod";

export const handlerResultSchema = z
  .strictObject({
    records: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
    summary: z.string().max(2000).optional(),
  })
  .default({});

export type HandlerResult = z.input<typeof handlerResultSchema>;
export type ParsedHandlerResult = z.output<typeof handlerResultSchema>;

/** void/undefined counts as an empty result; anything else must match the schema. */
export function parseHandlerResult(value: unknown): { ok: true; result: ParsedHandlerResult } | { ok: false; error: string } {
  const parsed = handlerResultSchema.safeParse(value ?? undefined);
  if (parsed.success) return { ok: true, result: parsed.data };
  const detail = parsed.error.issues.map((i) => `${i.path.join(".") || "result"}: ${i.message}`).join("; ");
  return { ok: false, error: `Handler returned an invalid result (${detail}); expected { records?: integer ≥ 0, summary?: string }` };
}
