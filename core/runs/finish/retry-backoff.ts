// Retry delays: exponential backoff with full jitter, capped (AWS "full jitter"): the delay is
// uniform in [0, min(cap, base · 2^(attempt−1))], so failing runs of many schedules spread out
// instead of hammering a failing service in unison.

export interface RetryPolicy {
  baseSeconds: number;
  maxSeconds: number;
}

/** Delay in ms before the attempt after `failedAttempt` (1 = the first attempt failed). */
export function retryDelayMs(failedAttempt: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const ceilingMs = retryCeilingMs(failedAttempt, policy);
  return Math.floor(random() * ceilingMs);
}

/** The upper bound of the jittered delay: min(cap, base · 2^(attempt−1)). */
export function retryCeilingMs(failedAttempt: number, policy: RetryPolicy): number {
  const exp = Math.min(Math.max(failedAttempt - 1, 0), 30);
  return Math.max(0, Math.min(policy.maxSeconds, policy.baseSeconds * 2 ** exp)) * 1000;
}
