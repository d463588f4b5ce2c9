// http.request: one HTTP call to a service in any language; the status is the outcome (non-2xx fails the
// attempt so it retries). Every call carries the run's idempotency key, so a retried or re-delivered run
// reaches the service with the same key — the service must honour it for its effect to happen once.
import { defineHandler } from "../../core/handlers/define-handler.ts";
import { httpRequestSpec } from "../../core/handlers/builtin-handler-specs.ts";
import { SIGNATURE_HEADER, TIMESTAMP_HEADER, signWebhook } from "../../core/alerts/webhook/sign-webhook.ts";
import type { HandlerContext } from "../../core/handlers/handler-context.ts";
import { egressFetch } from "../../core/http/egress/egress-fetch.ts";
import { readRecordCount } from "./http/read-record-count.ts";

export const httpRequest = defineHandler({
  ...httpRequestSpec,
  async run(p, ctx) {
    const body = p.method === "GET" || p.method === "HEAD" ? undefined : p.body;
    // Vigil's headers last: they win over anything the payload could set (the schema refuses those names too).
    const headers: Record<string, string> = {
      ...p.headers,
      "idempotency-key": ctx.idempotencyKey,
      "x-vigil-run-id": ctx.runId,
      "x-vigil-attempt": String(ctx.attempt),
    };
    if (p.signing) {
      const key = process.env[p.signing.keyEnv];
      if (!key) throw new Error(`signing.keyEnv names ${p.signing.keyEnv}, which is not set (or empty) in this worker's environment`);
      const timestamp = await databaseUnixSeconds(ctx);
      headers[TIMESTAMP_HEADER] = String(timestamp);
      headers[SIGNATURE_HEADER] = signWebhook(key, timestamp, body ?? "");
    }
    const started = performance.now();
    // The egress policy applies to the target and to every redirect hop (core/http/egress/).
    const res = await egressFetch(p.url, {
      method: p.method,
      headers,
      body,
      signal: AbortSignal.any([ctx.signal, AbortSignal.timeout(p.timeoutMs)]),
      redirect: "follow",
    });
    const ms = Math.round(performance.now() - started);
    ctx.log(res.ok ? "info" : "warn", `${p.method} ${p.url} → ${res.status}`, { status: res.status, ms });
    if (!res.ok) {
      // The body is not part of a failure's outcome; release the connection without buffering it.
      await res.body?.cancel().catch(() => undefined);
      throw new Error(`${p.method} ${p.url} answered ${res.status} ${res.statusText}`.trim());
    }
    const count = await readRecordCount(res);
    if (count.note) ctx.log("warn", count.note);
    const records = count.records ?? 1;
    return {
      records,
      summary: `${p.method} ${p.url} → ${res.status} in ${ms} ms${count.source ? `, ${records} record(s) (${count.source})` : ""}`,
    };
  },
});

/** The signature's timestamp comes from the database clock, like the alert webhooks': a skewed worker still signs in time. */
async function databaseUnixSeconds(ctx: HandlerContext): Promise<number> {
  const { rows } = await ctx.db.query<{ s: string }>(`SELECT floor(extract(epoch FROM clock_timestamp()))::bigint::text AS s`);
  return Number(rows[0]!.s);
}
