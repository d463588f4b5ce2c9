// A job that calls an HTTP API: GETs a JSON document and counts its items, so a run that received an
// empty list can be flagged hollow (a schedule's "expect at least N records"). The run's idempotency key
// travels as the Idempotency-Key header, so a service that honours it applies a retried call once.
import { defineHandler, z } from "vigil/sdk";

export const fetchJson = defineHandler({
  name: "examples.fetch-json",
  description: "GETs a JSON URL; records = the number of items in the array it returns (or at `itemsField`).",
  payload: z.strictObject({
    url: z.url({ protocol: /^https?$/, error: "url must be an http(s) URL" }),
    itemsField: z.string().min(1).optional().describe("Top-level field holding the array, when the answer is an object"),
    timeoutMs: z.number().int().min(1).max(120_000).default(10_000),
  }),
  async run(payload, ctx) {
    const res = await fetch(payload.url, {
      headers: { accept: "application/json", "idempotency-key": ctx.idempotencyKey },
      // Stops at the run's timeout or an operator's cancel, and at the call's own limit.
      signal: AbortSignal.any([ctx.signal, AbortSignal.timeout(payload.timeoutMs)]),
    });
    if (!res.ok) throw new Error(`GET ${payload.url} answered ${res.status}`);
    const body: unknown = await res.json();
    const items = payload.itemsField ? (body as Record<string, unknown>)?.[payload.itemsField] : body;
    if (!Array.isArray(items))
      throw new Error(`expected an array${payload.itemsField ? ` at "${payload.itemsField}"` : ""}, got ${typeof items}`);
    ctx.log("info", "fetched", { url: payload.url, items: items.length });
    return { records: items.length, summary: `${items.length} items from ${new URL(payload.url).host}` };
  },
});
