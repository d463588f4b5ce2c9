// Prometheus metrics, built per scrape from the database (the console keeps no state). Cardinality is bounded
// (issue 17; the series and their counts are listed in the README): fleet-wide histograms and counts by state
// carry no schedule label; per schedule only the trouble counts alerting needs, and only for schedules that have
// trouble in the window (absent means 0); full per-schedule histograms only for schedules tagged
// METRICS_DETAIL_TAG. Per-run aggregates cover a bounded window (runs planned in the last hour by default) and
// are computed in SQL in one pass, so a scrape costs one index-range aggregate, not a row per run in JavaScript.
import { Gauge, Registry } from "prom-client";
import type { Queryable } from "../db/pool";
import { ALERT_KINDS, ALERT_KIND_INFO } from "../alerts/alert-kinds";
import { getQueueSummary } from "./get-queue-summary";
import { COMPLETION_BUCKETS, LATENESS_BUCKETS, aggregateRuns, type HistogramCounts } from "./aggregate-runs";
import { aggregateFleet } from "./aggregate-fleet";
import { PrecomputedHistogram } from "./precomputed-histogram";

/** Default window; VIGIL_METRICS_WINDOW_SECONDS sets it (24 h of 1,000 schedules firing every minute scans 1.4 M runs). */
export const METRICS_WINDOW_SECONDS = 3600;
/** Schedules carrying this tag also get per-schedule histograms and counts by state (opt-in detail). */
export const METRICS_DETAIL_TAG = "metrics:detail";

interface Options {
  deadAfterMs: number;
  windowSeconds?: number;
}

function gauge(reg: Registry, name: string, help: string, labelNames: string[] = []): Gauge<string> {
  return new Gauge({ name, help, labelNames, registers: [reg] });
}

export async function collectMetrics(db: Queryable, opts: Options): Promise<Registry> {
  const started = performance.now();
  const windowSeconds = opts.windowSeconds ?? METRICS_WINDOW_SECONDS;
  const [fleet, detail, zombies, queue, alerts, daily] = await Promise.all([
    aggregateFleet(db, windowSeconds),
    aggregateRuns(db, windowSeconds, METRICS_DETAIL_TAG),
    db.query<{ schedule: string; n: number }>(
      `SELECT s.name AS schedule, count(*)::int AS n
         FROM run_events e JOIN runs r ON r.id = e.run_id JOIN schedules s ON s.id = r.schedule_id
        WHERE e.type = 'zombie_detected' AND e.at > now() - make_interval(secs => $1)
        GROUP BY s.name`,
      [windowSeconds],
    ),
    getQueueSummary(db, opts.deadAfterMs),
    db.query<{ kind: string; severity: string; n: number }>(
      `SELECT kind, severity, count(*)::int AS n FROM alerts WHERE resolved_at IS NULL GROUP BY kind, severity`,
    ),
    // The daily summaries (core/retention/): outlive the runs, so the last 90 days stay visible after retention.
    // Fleet-wide by outcome; per schedule only for the opt-in detail tag (bounded cardinality, README "Metrics").
    db.query<{
      schedule: string | null;
      total: number;
      on_time: number;
      late: number;
      failed: number;
      missed: number;
      skipped: number;
      hollow: number;
      lateness_max_ms: number | null;
    }>(
      `SELECT CASE WHEN s.tags @> ARRAY[$1::text] THEN s.name END AS schedule, sum(d.total)::int AS total, sum(d.on_time)::int AS on_time, sum(d.late)::int AS late,
              sum(d.failed)::int AS failed, sum(d.missed)::int AS missed, sum(d.skipped)::int AS skipped, sum(d.hollow)::int AS hollow,
              max(d.lateness_max_ms) AS lateness_max_ms
         FROM run_daily_summaries d JOIN schedules s ON s.id = d.schedule_id
        WHERE s.deleted_at IS NULL AND d.day >= (now() AT TIME ZONE 'UTC')::date - 90
        GROUP BY 1`,
      [METRICS_DETAIL_TAG],
    ),
  ]);

  const reg = new Registry();
  const window = `planned in the last ${windowSeconds >= 3600 ? `${+(windowSeconds / 3600).toFixed(2)} h` : `${windowSeconds} s`}`;
  gauge(reg, "vigil_metrics_window_seconds", "Window of the per-run aggregates (runs planned within it)").set(windowSeconds);

  const byState = gauge(reg, "vigil_runs", `Runs ${window}, by current state (all schedules)`, ["state"]);
  for (const [state, n] of fleet.byState) byState.set({ state }, n);
  gauge(reg, "vigil_run_retries", `Retry attempts of runs ${window} (all schedules)`).set(fleet.retries);

  // Per schedule: what alert rules need, only where there is something (absent means 0).
  const perSchedule = (name: string, help: string) =>
    gauge(reg, name, `${help} ${window}, by schedule (only schedules with any)`, ["schedule"]);
  const missed = perSchedule("vigil_runs_missed", "Occurrences that never started (missed)");
  const hollow = perSchedule("vigil_runs_hollow", "Runs that succeeded without the expected records (hollow)");
  const failed = perSchedule("vigil_runs_failed", "Runs that failed or timed out");
  const late = perSchedule("vigil_runs_late", "Runs that started late (beyond their jitter window + 1 s)");
  for (const t of fleet.trouble) {
    if (t.missed > 0) missed.set({ schedule: t.schedule }, t.missed);
    if (t.hollow > 0) hollow.set({ schedule: t.schedule }, t.hollow);
    if (t.failed > 0) failed.set({ schedule: t.schedule }, t.failed);
    if (t.late > 0) late.set({ schedule: t.schedule }, t.late);
  }
  const zombie = gauge(
    reg,
    "vigil_runs_zombie",
    `Zombie detections (worker lost mid-run) in the window, by schedule (only schedules with any)`,
    ["schedule"],
  );
  for (const r of zombies.rows) zombie.set({ schedule: r.schedule }, r.n);

  // Histograms over the window: a snapshot, not an ever-growing counter — read them with
  // histogram_quantile() directly, without rate().
  const fleetHistogram = (name: string, help: string, bounds: number[], h: HistogramCounts) =>
    reg.registerMetric(
      new PrecomputedHistogram({ name, help, labelNames: [], buckets: bounds, series: h.count > 0 ? [{ labels: {}, ...h }] : [] }),
    );
  fleetHistogram(
    "vigil_run_start_lateness_seconds",
    `Start lateness (started - planned) of runs ${window} (all schedules)`,
    LATENESS_BUCKETS,
    fleet.lateness,
  );
  fleetHistogram(
    "vigil_run_completion_gap_seconds",
    `Completion gap (finished - planned) of runs ${window} (all schedules)`,
    COMPLETION_BUCKETS,
    fleet.gap,
  );
  fleetHistogram("vigil_run_duration_seconds", `Handler duration of runs ${window} (all schedules)`, COMPLETION_BUCKETS, fleet.duration);

  // Opt-in detail for schedules tagged METRICS_DETAIL_TAG.
  const detailState = gauge(reg, "vigil_schedule_runs", `Runs ${window}, by schedule and state (schedules tagged ${METRICS_DETAIL_TAG})`, [
    "schedule",
    "state",
  ]);
  const detailRetries = gauge(reg, "vigil_schedule_run_retries", `Retry attempts ${window}, by schedule (tagged ${METRICS_DETAIL_TAG})`, [
    "schedule",
  ]);
  for (const a of detail) {
    for (const [state, n] of a.byState) detailState.set({ schedule: a.schedule, state }, n);
    detailRetries.set({ schedule: a.schedule }, a.retries);
  }
  const histogram = (name: string, help: string, bounds: number[], pick: (a: (typeof detail)[number]) => HistogramCounts) =>
    reg.registerMetric(
      new PrecomputedHistogram({
        name,
        help,
        labelNames: ["schedule"],
        buckets: bounds,
        series: detail.filter((a) => pick(a).count > 0).map((a) => ({ labels: { schedule: a.schedule }, ...pick(a) })),
      }),
    );
  histogram(
    "vigil_schedule_run_start_lateness_seconds",
    `Start lateness of runs ${window}, by schedule (tagged ${METRICS_DETAIL_TAG})`,
    LATENESS_BUCKETS,
    (a) => a.lateness,
  );
  histogram(
    "vigil_schedule_run_completion_gap_seconds",
    `Completion gap of runs ${window}, by schedule (tagged ${METRICS_DETAIL_TAG})`,
    COMPLETION_BUCKETS,
    (a) => a.gap,
  );
  histogram(
    "vigil_schedule_run_duration_seconds",
    `Handler duration of runs ${window}, by schedule (tagged ${METRICS_DETAIL_TAG})`,
    COMPLETION_BUCKETS,
    (a) => a.duration,
  );

  gauge(reg, "vigil_runs_running", "Runs executing now").set(queue.runsRunning);
  gauge(reg, "vigil_runs_retrying", "Runs waiting for their next attempt now").set(queue.runsRetrying);
  const depth = gauge(reg, "vigil_queue_depth", "Work waiting to start now: queued runs (runs) and pg-boss jobs not yet fetched (pgboss)", [
    "source",
  ]);
  depth.set({ source: "runs" }, queue.runsQueued);
  if (queue.jobsQueued !== null) depth.set({ source: "pgboss" }, queue.jobsQueued);
  gauge(reg, "vigil_runs_waiting", "Queued runs held back by their overlap policy or concurrency limit").set(queue.runsWaiting);
  gauge(reg, "vigil_workers_live", "Workers heartbeating within the dead-after window").set(queue.liveWorkers);
  const lag = gauge(reg, "vigil_planner_lag_seconds", "Planner lag reported by each live worker", ["worker"]);
  for (const w of queue.plannerLag) lag.set({ worker: w.workerId }, w.plannerLagMs / 1000);
  gauge(reg, "vigil_planner_lag_max_seconds", "Largest planner lag among live workers").set(
    Math.max(0, ...queue.plannerLag.map((w) => w.plannerLagMs)) / 1000,
  );
  gauge(reg, "vigil_planner_schedules_behind", "Live schedules not planned through now (never planned ones included)").set(
    queue.schedulesBehindPlan,
  );

  const open = gauge(reg, "vigil_alerts_open", "Open (unresolved) alerts by kind and severity", ["kind", "severity"]);
  for (const kind of ALERT_KINDS) open.set({ kind, severity: ALERT_KIND_INFO[kind].severity }, 0);
  for (const a of alerts.rows) open.set({ kind: a.kind, severity: a.severity }, a.n);

  const outcomes = ["total", "on_time", "late", "failed", "missed", "skipped", "hollow"] as const;
  const fleet90 = gauge(reg, "vigil_fleet_runs_90d", "Runs planned in the 90 UTC days before today, by outcome (daily summaries)", [
    "outcome",
  ]);
  const daily90 = gauge(
    reg,
    "vigil_runs_90d",
    `Runs planned in the 90 UTC days before today, by schedule and outcome (schedules tagged ${METRICS_DETAIL_TAG})`,
    ["schedule", "outcome"],
  );
  const dailyMax = gauge(
    reg,
    "vigil_run_start_lateness_90d_max_seconds",
    `Largest start lateness in the 90 days before today, by schedule (tagged ${METRICS_DETAIL_TAG})`,
    ["schedule"],
  );
  for (const outcome of outcomes)
    fleet90.set(
      { outcome },
      daily.rows.reduce((n, r) => n + r[outcome], 0),
    );
  for (const r of daily.rows) {
    if (r.schedule === null) continue;
    for (const outcome of outcomes) daily90.set({ schedule: r.schedule, outcome }, r[outcome]);
    if (r.lateness_max_ms !== null) dailyMax.set({ schedule: r.schedule }, r.lateness_max_ms / 1000);
  }

  gauge(reg, "vigil_metrics_scrape_duration_seconds", "Time this scrape spent querying the database").set(
    (performance.now() - started) / 1000,
  );
  return reg;
}
