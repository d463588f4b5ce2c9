// http.request: one HTTP call; the status is the outcome (non-2xx fails the attempt so it retries).
import { defineHandler } from "../../core/handlers/define-handler.ts";
import { httpRequestSpec } from "../../core/handlers/builtin-handler-specs.ts";

export const httpRequest = defineHandler({
  ...httpRequestSpec,
  async run(p, ctx) {
    const started = performance.now();
    const res = await fetch(p.url, {
      method: p.method,
      headers: p.headers,
      body: p.method === "GET" || p.method === "HEAD" ? undefined : p.body,
      signal: AbortSignal.any([ctx.signal, AbortSignal.timeout(p.timeoutMs)]),
      redirect: "follow",
    });
    // The body is not part of the outcome; release the connection without buffering it.
    await res.body?.cancel().catch(() => undefined);
    const ms = Math.round(performance.now() - started);
    ctx.log(res.ok ? "info" : "warn", `${p.method} ${p.url} → ${res.status}`, { status: res.status, ms });
    if (!res.ok) throw new Error(`${p.method} ${p.url} answered ${res.status} ${res.statusText}`.trim());
    return { records: 1, summary: `${p.method} ${p.url} → ${res.status} in ${ms} ms` };
  },
});
