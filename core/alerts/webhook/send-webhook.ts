// One HTTP POST of a webhook body, bounded by a timeout (AbortSignal) so a receiver that never
// answers costs at most timeoutMs of one delivery slot. 2xx is success; anything else, a
// redirect included, is a failure to retry. The egress policy decides which addresses it may reach
// (core/http/egress/): a refused one is a failed attempt whose error says why, and nothing is sent.
import { egressFetch } from "../../http/egress/egress-fetch";
import type { EgressPolicy } from "../../http/egress/egress-policy";

export interface SendResult {
  ok: boolean;
  status: number | null;
  error: string | null;
  durationMs: number;
}

export async function sendWebhook(
  url: string,
  body: string,
  headers: Record<string, string>,
  timeoutMs: number,
  policy?: EgressPolicy,
): Promise<SendResult> {
  const started = performance.now();
  try {
    const res = await egressFetch(url, {
      policy,
      method: "POST",
      body,
      headers: { "content-type": "application/json", ...headers },
      redirect: "manual",
      signal: AbortSignal.timeout(timeoutMs),
    });
    // The answer's body is not needed; release the connection without reading it.
    await res.body?.cancel().catch(() => undefined);
    const ok = res.status >= 200 && res.status < 300;
    return { ok, status: res.status, error: ok ? null : `HTTP ${res.status}`, durationMs: performance.now() - started };
  } catch (err) {
    const e = err as Error & { code?: string };
    const timedOut = e.name === "TimeoutError" || e.name === "AbortError";
    const error = timedOut ? `no answer within ${timeoutMs} ms` : e.name === "EgressRefusedError" ? e.message : (e.code ?? e.message);
    return { ok: false, status: null, error: String(error).slice(0, 500), durationMs: performance.now() - started };
  }
}
