// Alerts on conditions that hold or not at evaluation time: p95 lateness over a window, a streak of
// failures, no live worker, a planner falling behind. Each returns what fires now and which keys
// have evidence that the condition cleared; a key with neither (no data) keeps its current state.
import type { Queryable } from "../db/pool";
import { liveHandlerPoolsSql, poolKeySql } from "../handlers/handler-registry";
import { noLiveWorkerText } from "../queue/worker-pool";
import type { AlertCandidate } from "./alert-change";
import { formatDuration } from "../format-duration";

export interface ConditionResult {
  firing: AlertCandidate[];
  clear: { dedupeKey: string; resolution: string }[];
}

/** p95 over fewer starts than this is noise, not an SLO breach; single late runs are lateness_max_ms's job. */
export const P95_MIN_SAMPLES = 3;

/** Runs that started in the window; found among runs planned within twice the window (index range per schedule). */
export async function evaluateLatenessP95(db: Queryable, windowSeconds: number): Promise<ConditionResult> {
  const { rows } = await db.query<{ schedule_id: string; name: string; slo_ms: number; n: number; p95_ms: number }>(
    `SELECT s.id AS schedule_id, s.name, s.lateness_p95_slo_ms AS slo_ms, count(*)::int AS n,
            percentile_cont(0.95) WITHIN GROUP (ORDER BY r.lateness_ms) AS p95_ms
       FROM schedules s
      CROSS JOIN LATERAL (
        SELECT r.lateness_ms FROM runs r
         WHERE r.schedule_id = s.id AND r.kind <> 'backfill' AND r.reruns = 0
           AND r.planned_at > now() - make_interval(secs => 2 * $1)
           AND r.started_at > now() - make_interval(secs => $1) AND r.lateness_ms IS NOT NULL
        OFFSET 0) r
      WHERE s.deleted_at IS NULL AND s.lateness_p95_slo_ms IS NOT NULL
      GROUP BY s.id`,
    [windowSeconds],
  );
  const out: ConditionResult = { firing: [], clear: [] };
  for (const r of rows) {
    const key = `late:p95:${r.schedule_id}`;
    const p95 = Math.round(Number(r.p95_ms));
    if (r.n >= P95_MIN_SAMPLES && p95 > r.slo_ms) {
      out.firing.push({
        kind: "late",
        dedupeKey: key,
        severity: "warning",
        scheduleId: r.schedule_id,
        runId: null,
        message: `${r.name}: p95 start lateness is ${formatDuration(p95)} over the last ${formatDuration(windowSeconds * 1000)} (objective ${formatDuration(r.slo_ms)}, ${r.n} runs)`,
        data: { rule: "late:p95", p95Ms: p95, sloMs: r.slo_ms, samples: r.n, windowSeconds },
        causeAt: null,
        causes: 1,
      });
    } else if (p95 <= r.slo_ms) {
      out.clear.push({
        dedupeKey: key,
        resolution: `p95 start lateness is back to ${formatDuration(p95)} (objective ${formatDuration(r.slo_ms)}).`,
      });
    }
  }
  return out;
}

const FAILED = `('failed', 'timed_out', 'zombie')`;
const SUCCEEDED = `('succeeded', 'hollow')`;

/** VIGIL_ALERT_FAILURE_THRESHOLD's default: a schedule that sets no threshold of its own alerts after this many. */
export const DEFAULT_FAILURE_ALERT_THRESHOLD = 3;

/**
 * The threshold in force for a schedule, in SQL: its own (0 = no failure alerts for it), else the global default
 * (parameter `param`; 0 = off for every schedule without its own). Shared by the rule and the resolution of alerts
 * whose schedule no longer alerts on failures, so the two never disagree.
 */
export const failureThresholdSql = (param: string) => `coalesce(s.failure_alert_threshold, ${param}::int)`;

/**
 * For schedule `s`: its last success within a day (`ok.at`) and the failed runs since (`f`: the streak, the latest
 * one's id, error and state). Also the bench's baseline (bench/failure-alerts.bench.ts: every schedule, no prefilter).
 */
export const FAILURE_STREAK_READS_SQL = `LEFT JOIN LATERAL (
         SELECT max(planned_at) AS at FROM runs
          WHERE schedule_id = s.id AND state IN ${SUCCEEDED} AND planned_at > now() - interval '1 day') ok ON true
       LEFT JOIN LATERAL (
         SELECT count(*)::int AS streak,
                (array_agg(r.id ORDER BY r.planned_at DESC))[1] AS last_run_id,
                (array_agg(r.error ORDER BY r.planned_at DESC))[1] AS last_error,
                (array_agg(r.state ORDER BY r.planned_at DESC))[1] AS last_state
           FROM runs r
          WHERE r.schedule_id = s.id AND r.state IN ${FAILED}
            AND r.planned_at > coalesce(ok.at, now() - interval '1 day')) f ON true`;

/** The rule's one statement ($1: the global default threshold); bench/failure-alerts.bench.ts reads its plan. */
export const FAILURE_STREAKS_SQL = `WITH candidates AS (
       SELECT DISTINCT schedule_id FROM runs
        WHERE state IN ${FAILED} AND planned_at > now() - interval '1 day'
       UNION
       SELECT schedule_id FROM alerts WHERE kind = 'failures' AND resolved_at IS NULL AND schedule_id IS NOT NULL)
     SELECT s.id AS schedule_id, s.name, ${failureThresholdSql("$1")} AS threshold, s.failure_alert_threshold AS own_threshold,
            ok.at AS last_success_at, f.streak, f.last_run_id, f.last_error, f.last_state
       FROM candidates c
       JOIN schedules s ON s.id = c.schedule_id
       ${FAILURE_STREAK_READS_SQL}
      WHERE s.deleted_at IS NULL AND ${failureThresholdSql("$1")} > 0`;

/**
 * Consecutive failed / timed-out / zombie runs, counted back to the last success within a day: the streak a
 * failing schedule is on. Every schedule alerts at the global default threshold unless it sets its own.
 *
 * Runs every VIGIL_ALERT_EVAL_MS on every fleet size, so it reads only the schedules that can fire or clear: those
 * with a failed run planned in the last day (runs_state_planned_idx, one range per failed state) and those with an
 * open failures alert (so a streak whose failures are older than a day still clears on its next success). A
 * schedule outside both has a streak of 0 and nothing open to resolve, which is what the per-schedule reads found.
 */
export async function evaluateFailureStreaks(db: Queryable, defaultThreshold: number): Promise<ConditionResult> {
  const { rows } = await db.query<{
    schedule_id: string;
    name: string;
    threshold: number;
    own_threshold: number | null;
    last_success_at: Date | null;
    streak: number;
    last_run_id: string | null;
    last_error: string | null;
    last_state: string | null;
  }>(FAILURE_STREAKS_SQL, [defaultThreshold]);
  const out: ConditionResult = { firing: [], clear: [] };
  for (const r of rows) {
    const key = `failures:${r.schedule_id}`;
    if (r.streak >= r.threshold) {
      const err = r.last_error ? `; last error: ${String(r.last_error).slice(0, 300)}` : "";
      const from = r.own_threshold === null ? ", the default" : "";
      out.firing.push({
        kind: "failures",
        dedupeKey: key,
        severity: "critical",
        scheduleId: r.schedule_id,
        runId: r.last_run_id,
        message: `${r.name}: ${r.streak} consecutive runs failed (threshold ${r.threshold}${from}; last ended ${r.last_state})${err}`,
        data: {
          consecutive: r.streak,
          threshold: r.threshold,
          thresholdFrom: r.own_threshold === null ? "default" : "schedule",
          lastState: r.last_state,
          lastError: r.last_error,
        },
        causeAt: null,
        causes: 1,
      });
    } else if (r.last_success_at) {
      out.clear.push({ dedupeKey: key, resolution: "A run of the schedule succeeded, ending the failure streak." });
    }
  }
  return out;
}

export async function evaluateWorkerHealth(
  db: Queryable,
  opts: { deadAfterMs: number; plannerLagThresholdMs: number },
): Promise<ConditionResult> {
  const { rows } = await db.query<{
    registered: number;
    live: number;
    silent_ms: number | null;
    lag_ms: number | null;
    lag_worker: string | null;
  }>(
    `WITH w AS (
       SELECT id, heartbeat_at, planner_lag_ms,
              stopped_at IS NULL AND state <> 'stopped'
                AND heartbeat_at > clock_timestamp() - make_interval(secs => $1 / 1000.0) AS live
         FROM workers)
     SELECT (SELECT count(*)::int FROM w) AS registered,
            (SELECT count(*)::int FROM w WHERE live) AS live,
            (SELECT (extract(epoch FROM clock_timestamp() - max(heartbeat_at)) * 1000)::bigint FROM w) AS silent_ms,
            (SELECT planner_lag_ms FROM w WHERE live AND planner_lag_ms IS NOT NULL ORDER BY planner_lag_ms DESC LIMIT 1) AS lag_ms,
            (SELECT id FROM w WHERE live AND planner_lag_ms IS NOT NULL ORDER BY planner_lag_ms DESC LIMIT 1) AS lag_worker`,
    [opts.deadAfterMs],
  );
  const h = rows[0]!;
  const out: ConditionResult = { firing: [], clear: [] };
  // A fresh install that never had a worker is not an incident; one whose workers all went silent is.
  if (h.live === 0 && h.registered > 0) {
    out.firing.push({
      kind: "no_worker",
      dedupeKey: "no_worker",
      severity: "critical",
      scheduleId: null,
      runId: null,
      message: `No live worker: the last heartbeat was ${formatDuration(Number(h.silent_ms))} ago, so nothing is planned or executed`,
      data: { registered: h.registered, silentMs: Number(h.silent_ms), deadAfterMs: opts.deadAfterMs },
      causeAt: null,
      causes: 1,
    });
  } else if (h.live > 0) {
    out.clear.push({ dedupeKey: "no_worker", resolution: `${h.live} worker${h.live === 1 ? " is" : "s are"} heartbeating again.` });
  }
  if (h.lag_ms !== null) {
    if (h.lag_ms > opts.plannerLagThresholdMs) {
      out.firing.push({
        kind: "planner_lag",
        dedupeKey: "planner_lag",
        severity: "warning",
        scheduleId: null,
        runId: null,
        message: `Planner behind: worker ${h.lag_worker} reports ${formatDuration(h.lag_ms)} of planner lag (threshold ${formatDuration(opts.plannerLagThresholdMs)})`,
        data: { plannerLagMs: h.lag_ms, workerId: h.lag_worker, thresholdMs: opts.plannerLagThresholdMs },
        causeAt: null,
        causes: 1,
      });
    } else {
      out.clear.push({ dedupeKey: "planner_lag", resolution: `Planner lag is back to ${formatDuration(h.lag_ms)}.` });
    }
  }
  return out;
}

/** How long a due run may wait for a worker that serves its handler before the schedule alerts. */
export const HANDLER_WAIT_GRACE_MS = 5000;

/**
 * Runs are routed to workers that serve their handler, in their team's pool (core/queue/boss.ts, worker-pool.ts). A
 * schedule whose due runs wait while no live worker of its pool serves its handler alerts (per schedule, naming the
 * handler and the pool), instead of its runs sitting queued in silence; it clears once such a worker is live or
 * nothing waits.
 */
export async function evaluateHandlerWorkers(db: Queryable, opts: { deadAfterMs: number }): Promise<ConditionResult> {
  const { rows } = await db.query<{
    schedule_id: string;
    name: string;
    handler: string;
    pool: string | null;
    n: number;
    waited_ms: number;
  }>(
    // The live (handler, pool) pairs are read once and the waiting runs grouped per (schedule, handler) first: asking
    // liveWorkerServesSql per waiting run cost 88 ms a call with 10,000 schedules' runs waiting, this 18 ms (the pairs
    // are joined by hash; the rule is the same).
    `WITH live AS MATERIALIZED (${liveHandlerPoolsSql("$1")}),
     waiting AS (
       SELECT r.schedule_id, r.handler, count(*)::int AS n, min(coalesce(r.next_attempt_at, r.due_at)) AS oldest
         FROM runs r
        WHERE ((r.state = 'queued' AND r.wait_reason IS NULL AND r.due_at < clock_timestamp() - make_interval(secs => $2 / 1000.0))
            OR (r.state = 'retrying' AND r.next_attempt_at < clock_timestamp() - make_interval(secs => $2 / 1000.0)))
        GROUP BY r.schedule_id, r.handler)
     SELECT g.schedule_id, s.name, g.handler, t.worker_pool AS pool, g.n,
            (extract(epoch FROM clock_timestamp() - g.oldest) * 1000)::bigint AS waited_ms
       FROM waiting g JOIN schedules s ON s.id = g.schedule_id JOIN teams t ON t.id = s.team_id
      WHERE NOT EXISTS (SELECT 1 FROM live l WHERE l.handler = g.handler AND l.pool_key = ${poolKeySql("t.worker_pool")})`,
    [opts.deadAfterMs, HANDLER_WAIT_GRACE_MS],
  );
  const out: ConditionResult = { firing: [], clear: [] };
  const firing = new Set<string>();
  for (const r of rows) {
    const key = `no_handler_worker:${r.schedule_id}`;
    firing.add(key);
    out.firing.push({
      kind: "no_handler_worker",
      dedupeKey: key,
      severity: "critical",
      scheduleId: r.schedule_id,
      runId: null,
      message: `${r.name}: ${r.n} due run${r.n === 1 ? "" : "s"} waiting ${formatDuration(Number(r.waited_ms))}: ${noLiveWorkerText(r.handler, r.pool)}`,
      data: { handler: r.handler, pool: r.pool, waiting: r.n, waitedMs: Number(r.waited_ms) },
      causeAt: null,
      causes: 1,
    });
  }
  const { rows: open } = await db.query<{ dedupe_key: string }>(
    `SELECT dedupe_key FROM alerts WHERE kind = 'no_handler_worker' AND resolved_at IS NULL`,
  );
  for (const a of open) {
    if (!firing.has(a.dedupe_key))
      out.clear.push({
        dedupeKey: a.dedupe_key,
        resolution: "A live worker (of the schedule's pool, if its team has one) serves the handler again (or no run waits for one).",
      });
  }
  return out;
}

/**
 * Schedule-level condition alerts whose schedule was deleted or dropped the expectation. `configSql` may use the
 * parameters in `params` as $4, $5, … (resolveUnconfiguredAlerts passes them after its own three).
 */
export function conditionConfig(opts: {
  failureAlertThreshold: number;
}): { kind: string; prefix: string; configSql: string; params: unknown[] }[] {
  return [
    { kind: "late", prefix: "late:p95:", configSql: "s.lateness_p95_slo_ms IS NOT NULL", params: [] },
    { kind: "failures", prefix: "failures:", configSql: `${failureThresholdSql("$4")} > 0`, params: [opts.failureAlertThreshold] },
    { kind: "cadence", prefix: "cadence:", configSql: "true", params: [] },
  ];
}
