// One HTTP POST of a webhook body, bounded by a timeout (AbortSignal) so a receiver that never
// answers costs at most timeoutMs of one delivery slot. 2xx is success; anything else, a
// redirect included, is a failure to retry.
export interface SendResult {
  ok: boolean;
  status: number | null;
  error: string | null;
  durationMs: number;
}

export async function sendWebhook(url: string, body: string, headers: Record<string, string>, timeoutMs: number): Promise<SendResult> {
  const started = performance.now();
  try {
    const res = await fetch(url, {
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
    const e = err as Error & { cause?: { code?: string; message?: string } };
    const timedOut = e.name === "TimeoutError" || e.name === "AbortError";
    const error = timedOut ? `no answer within ${timeoutMs} ms` : (e.cause?.code ?? e.cause?.message ?? e.message);
    return { ok: false, status: null, error: String(error).slice(0, 500), durationMs: performance.now() - started };
  }
}
