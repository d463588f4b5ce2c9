// Webhook settings from the environment, shared by the worker's alerter and the console's fallback.
import type { Env } from "../../env";
import type { WebhookOptions } from "./deliver-alert-webhook";

export function webhookOptionsFromEnv(env: Env, userAgent: string): WebhookOptions {
  return {
    secret: env.VIGIL_ALERT_WEBHOOK_SECRET ?? null,
    timeoutMs: env.VIGIL_ALERT_WEBHOOK_TIMEOUT_MS,
    maxAttempts: env.VIGIL_ALERT_WEBHOOK_MAX_ATTEMPTS,
    backoff: { baseMs: env.VIGIL_ALERT_WEBHOOK_BACKOFF_BASE_MS, maxMs: env.VIGIL_ALERT_WEBHOOK_BACKOFF_MAX_MS },
    userAgent,
  };
}

/** A claim outlives the request timeout by far, so a slow send is never claimed twice while in flight. */
export function webhookLeaseMs(o: WebhookOptions): number {
  return o.timeoutMs + 60_000;
}
