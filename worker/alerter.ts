// The worker's alerting: evaluates every alert rule every couple of seconds (one evaluator at a
// time across all workers, see core/alerts/evaluate-alerts.ts) and delivers webhooks.
//
// Deliveries run concurrently in a small bounded pool: each is claimed with FOR UPDATE SKIP LOCKED
// (two workers never send the same attempt), sent with a request timeout, and recorded. A receiver
// that never answers holds at most MAX_IN_FLIGHT_PER_URL slots, each for at most the timeout, while
// the others keep flowing.
import type pg from "pg";
import type { Env } from "../core/env";
import type { Logger } from "../core/log";
import { alertOptionsFromEnv, evaluateAlerts } from "../core/alerts/evaluate-alerts";
import { claimAlertDeliveries } from "../core/alerts/webhook/claim-alert-deliveries";
import { deliverAlertWebhook } from "../core/alerts/webhook/deliver-alert-webhook";
import { webhookLeaseMs, webhookOptionsFromEnv } from "../core/alerts/webhook/webhook-options";
import { every, type WorkerService } from "./service";

export const MAX_DELIVERIES_IN_FLIGHT = 8;
/** Per receiver URL: a receiver that never answers holds at most this many slots. */
export const MAX_IN_FLIGHT_PER_URL = 2;
const DELIVERY_POLL_MS = 1000;

export interface Alerter extends WorkerService {
  /** Evaluate now (tests, or a service that just changed something worth a look). */
  evaluateNow(): void;
}

export function createAlerter(opts: { pool: pg.Pool; env: Env; log: Logger; version: string }): Alerter {
  const { pool, env } = opts;
  const log = opts.log.child({ service: "alerter" });
  const evaluation = alertOptionsFromEnv(env);
  const webhook = webhookOptionsFromEnv(env, `vigil/${opts.version}`);
  // Event-loop stalls of many seconds were seen on a loaded machine: the lease covers them.
  const leaseMs = webhookLeaseMs(webhook);
  const inFlight = new Set<Promise<void>>();
  const inFlightByUrl = new Map<string, number>();
  let warnedUnsigned = false;

  const evaluate = async () => {
    const r = await evaluateAlerts(pool, evaluation);
    for (const a of r.opened)
      log.warn(
        { alertId: a.id, kind: a.kind, dedupeKey: a.dedupeKey, scheduleId: a.scheduleId, runId: a.runId },
        `alert opened: ${a.message}`,
      );
    for (const a of r.resolved)
      log.info(
        { alertId: a.id, kind: a.kind, dedupeKey: a.dedupeKey, scheduleId: a.scheduleId, resolution: a.resolution },
        `alert resolved: ${a.message}`,
      );
    if (r.opened.length > 0 || r.resolved.length > 0) deliveries.poke();
  };

  const deliverOne = async (claimed: Awaited<ReturnType<typeof claimAlertDeliveries>>[number]) => {
    const report = await deliverAlertWebhook(pool, claimed, webhook);
    const fields = {
      deliveryId: report.deliveryId,
      alertId: claimed.alert.id,
      event: claimed.event,
      url: claimed.url,
      ...(claimed.channelId ? { channelId: claimed.channelId } : {}),
      attempt: report.attempt,
      status: report.status,
      durationMs: Math.round(report.durationMs),
    };
    if (report.ok) log.info(fields, "alert webhook delivered");
    else if (report.state === "failed")
      log.error({ ...fields, error: report.error }, "alert webhook failed for good after the last attempt");
    else log.warn({ ...fields, error: report.error, retryInMs: report.retryDelayMs, state: report.state }, "alert webhook attempt failed");
    // Wake up when the retry is due instead of up to a poll interval later, so the delays the
    // receiver sees are the backoff's, not the poll's.
    if (report.state === "pending") setTimeout(() => deliveries.poke(), report.retryDelayMs + 5).unref();
  };

  const pumpOnce = async () => {
    const free = MAX_DELIVERIES_IN_FLIGHT - inFlight.size;
    if (free <= 0) return;
    const claimed = await claimAlertDeliveries(pool, { limit: free, leaseMs, perUrl: MAX_IN_FLIGHT_PER_URL, inFlightByUrl });
    if (claimed.length > 0 && !webhook.secret && !warnedUnsigned) {
      warnedUnsigned = true;
      log.warn("VIGIL_ALERT_WEBHOOK_SECRET is not set: alert webhooks are sent unsigned");
    }
    for (const d of claimed) {
      inFlightByUrl.set(d.url, (inFlightByUrl.get(d.url) ?? 0) + 1);
      const p: Promise<void> = deliverOne(d)
        .catch((err) => log.error({ err, deliveryId: d.id, alertId: d.alert.id }, "alert webhook delivery could not be recorded"))
        .finally(() => {
          inFlight.delete(p);
          const left = (inFlightByUrl.get(d.url) ?? 1) - 1;
          if (left > 0) inFlightByUrl.set(d.url, left);
          else inFlightByUrl.delete(d.url);
          // A slot is free: there may be more due right now.
          deliveries.poke();
        });
      inFlight.add(p);
    }
  };

  // Pokes can overlap (a finished send, an evaluation, a retry timer): claims run one after another,
  // so the free-slot count each one sees is true.
  let pumping: Promise<void> = Promise.resolve();
  const pump = () => (pumping = pumping.catch(() => undefined).then(pumpOnce));

  const evaluations = every(env.VIGIL_ALERT_EVAL_MS, evaluate, (err) => log.error({ err }, "alert evaluation failed"));
  const deliveries = every(DELIVERY_POLL_MS, pump, (err) => log.error({ err }, "claiming alert webhooks failed"));

  return {
    name: "alerter",
    async start() {
      evaluations.start();
      deliveries.start();
    },
    async stop() {
      await evaluations.stop();
      await deliveries.stop();
      // Sends in flight end by their own timeout; their outcome is recorded before the pool closes.
      await Promise.allSettled([...inFlight]);
    },
    evaluateNow: () => evaluations.poke(),
  };
}
