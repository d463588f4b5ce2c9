// One alert evaluation pass: every rule, in one transaction, by one evaluator at a time.
//
// Every worker calls this every couple of seconds. Evaluators are serialised by a transaction-level
// advisory lock (try-lock: a worker that finds another one evaluating skips its turn), so each pass
// reads what the previous one committed; the partial unique index on open dedupe keys is the
// backstop that makes a second open alert for one condition impossible. Opened and resolved alerts
// queue their webhook deliveries in the same transaction.
import pg from "pg";
import { withTransaction } from "../db/pool";
import type { Env } from "../env";
import type { AlertChange } from "./alert-change";
import type { AlertKind } from "./alert-kinds";
import {
  conditionConfig,
  DEFAULT_FAILURE_ALERT_THRESHOLD,
  evaluateFailureStreaks,
  evaluateHandlerWorkers,
  evaluateLatenessP95,
  evaluateWorkerHealth,
  type ConditionResult,
} from "./condition-alert-rules";
import { DEFAULT_CADENCE, evaluateCadence } from "./cadence-check";
import { enqueueAlertDeliveries } from "./enqueue-alert-deliveries";
import type { WebhookFormat } from "./webhook/webhook-format";
import { detectRunCauses, resolveRunAlerts } from "./evaluate-run-rule";
import { RUN_ALERT_RULES } from "./run-alert-rules";
import { resolveAlertsByKey, resolveUnconfiguredAlerts, upsertAlerts } from "./upsert-alerts";

export const ALERT_EVALUATION_LOCK = 746360;

export interface EvaluateAlertsOptions {
  deadAfterMs: number;
  plannerLagThresholdMs: number;
  latenessWindowSeconds: number;
  /**
   * Consecutive failures before a schedule without its own threshold alerts (VIGIL_ALERT_FAILURE_THRESHOLD; 0 = only
   * schedules that set one alert). Left out: DEFAULT_FAILURE_ALERT_THRESHOLD, the env's default.
   */
  failureAlertThreshold?: number;
  globalWebhookUrl?: string | null;
  globalWebhookFormat?: WebhookFormat;
  /** Evaluate only these kinds (the console checks no_worker itself: workers cannot report their own absence). */
  kinds?: readonly AlertKind[];
  /**
   * The cadence check (cadence-check.ts) compares an hour of rows with the plan: it runs at most this often per pool
   * (default CADENCE_EVERY_MS), not on every pass.
   */
  cadenceEveryMs?: number;
  /** VIGIL_PLAN_AHEAD_SECONDS × 1000 (the cadence check's grace after an edit). */
  planAheadMs?: number;
}

export const CADENCE_EVERY_MS = 60_000;
const lastCadence = new WeakMap<pg.Pool, number>();

export interface EvaluationResult {
  /** false when another evaluator held the lock and this pass was skipped. */
  ran: boolean;
  opened: AlertChange[];
  resolved: AlertChange[];
  durationMs: number;
}

export function alertOptionsFromEnv(env: Env): EvaluateAlertsOptions {
  return {
    deadAfterMs: env.VIGIL_WORKER_DEAD_AFTER_MS,
    plannerLagThresholdMs: env.VIGIL_ALERT_PLANNER_LAG_MS,
    latenessWindowSeconds: env.VIGIL_ALERT_LATENESS_WINDOW_SECONDS,
    failureAlertThreshold: env.VIGIL_ALERT_FAILURE_THRESHOLD,
    planAheadMs: env.VIGIL_PLAN_AHEAD_SECONDS * 1000,
    globalWebhookUrl: env.VIGIL_ALERT_WEBHOOK_URL ?? null,
    globalWebhookFormat: env.VIGIL_ALERT_WEBHOOK_FORMAT,
  };
}

export async function evaluateAlerts(pool: pg.Pool, opts: EvaluateAlertsOptions): Promise<EvaluationResult> {
  const started = performance.now();
  const wants = (k: AlertKind) => !opts.kinds || opts.kinds.includes(k);
  const failureAlertThreshold = opts.failureAlertThreshold ?? DEFAULT_FAILURE_ALERT_THRESHOLD;
  return withTransaction(async (tx) => {
    const { rows } = await tx.query<{ locked: boolean }>("SELECT pg_try_advisory_xact_lock($1) AS locked", [ALERT_EVALUATION_LOCK]);
    if (!rows[0]!.locked) return { ran: false, opened: [], resolved: [], durationMs: performance.now() - started };
    const opened: AlertChange[] = [];
    const resolved: AlertChange[] = [];

    // Raise before resolving: a cause and the run that cleared it, both seen in one pass, give
    // one alert opened and resolved rather than none.
    for (const rule of RUN_ALERT_RULES) {
      if (!wants(rule.kind)) continue;
      opened.push(...(await upsertAlerts(tx, await detectRunCauses(tx, rule))));
      resolved.push(...(await resolveRunAlerts(tx, rule)));
    }

    const conditions: ConditionResult[] = [];
    if (wants("late")) conditions.push(await evaluateLatenessP95(tx, opts.latenessWindowSeconds));
    if (wants("failures")) conditions.push(await evaluateFailureStreaks(tx, failureAlertThreshold));
    if (wants("no_handler_worker")) conditions.push(await evaluateHandlerWorkers(tx, opts));
    const cadenceDue = performance.now() - (lastCadence.get(pool) ?? -Infinity) >= (opts.cadenceEveryMs ?? CADENCE_EVERY_MS);
    if (wants("cadence") && cadenceDue) {
      lastCadence.set(pool, performance.now());
      conditions.push(await evaluateCadence(tx, { ...DEFAULT_CADENCE, planAheadMs: opts.planAheadMs ?? DEFAULT_CADENCE.planAheadMs }));
    }
    if (wants("no_worker") || wants("planner_lag")) {
      const health = await evaluateWorkerHealth(tx, opts);
      conditions.push({
        firing: health.firing.filter((c) => wants(c.kind)),
        clear: health.clear.filter((c) => wants(c.dedupeKey as AlertKind)),
      });
    }
    for (const c of conditions) {
      opened.push(...(await upsertAlerts(tx, c.firing)));
      resolved.push(...(await resolveAlertsByKey(tx, c.clear)));
    }
    for (const c of conditionConfig({ failureAlertThreshold })) {
      if (wants(c.kind as AlertKind)) resolved.push(...(await resolveUnconfiguredAlerts(tx, c.kind, c.prefix, c.configSql, c.params)));
    }

    await enqueueAlertDeliveries(
      tx,
      opened.map((a) => a.id),
      "opened",
      opts.globalWebhookUrl,
      opts.globalWebhookFormat,
    );
    await enqueueAlertDeliveries(
      tx,
      resolved.map((a) => a.id),
      "resolved",
      opts.globalWebhookUrl,
      opts.globalWebhookFormat,
    );
    return { ran: true, opened, resolved, durationMs: performance.now() - started };
  }, pool);
}
