// Delay before the next webhook attempt: capped exponential backoff with FULL jitter, the same
// policy as run retries (core/runs/finish/retry-backoff.ts): uniform in [0, min(cap, base · 2^(attempt−1))],
// so receivers that come back are not hit by every worker's retries in the same instant.
export interface WebhookBackoff {
  baseMs: number;
  maxMs: number;
}

/** The ceiling of the jittered delay after `failedAttempt` (1 = the first attempt failed). */
export function webhookBackoffCeilingMs(failedAttempt: number, p: WebhookBackoff): number {
  const exp = Math.min(Math.max(failedAttempt - 1, 0), 30);
  return Math.max(0, Math.min(p.maxMs, p.baseMs * 2 ** exp));
}

export function webhookRetryDelayMs(failedAttempt: number, p: WebhookBackoff, random: () => number = Math.random): number {
  return Math.floor(random() * webhookBackoffCeilingMs(failedAttempt, p));
}
