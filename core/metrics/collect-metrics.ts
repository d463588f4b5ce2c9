// Prometheus metrics, built per scrape from the database (the console keeps no state): run counts
// by schedule and state, start-lateness / completion-gap / duration histograms per schedule, queue
// depth, running/retrying/zombie/missed/hollow counts, live workers, planner lag and open alerts.
// Per-run aggregates cover a bounded window (runs planned in the last hour by default) and are
// computed in SQL, so a scrape costs one index-range aggregate, not a row per run in JavaScript.
import { Gauge, Registry } from "prom-client";
import type { Queryable } from "../db/pool";
import { ALERT_KINDS, ALERT_KIND_INFO } from "../alerts/alert-kinds";
import { getQueueSummary } from "./get-queue-summary";
import { COMPLETION_BUCKETS, LATENESS_BUCKETS, aggregateRuns, type HistogramCounts } from "./aggregate-runs";
import { PrecomputedHistogram } from "./precomputed-histogram";

/** Default window; VIGIL_METRICS_WINDOW_SECONDS sets it (24 h of 1,000 schedules firing every minute scans 1.4 M runs). */
export const METRICS_WINDOW_SECONDS = 3600;

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
  const [runs, zombies, queue, alerts, daily] = await Promise.all([
    aggregateRuns(db, windowSeconds),
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
    db.query<{
      schedule: string;
      total: number;
      on_time: number;
      late: number;
      failed: number;
      missed: number;
      skipped: number;
      hollow: number;
      lateness_max_ms: number | null;
    }>(
      `SELECT s.name AS schedule, sum(d.total)::int AS total, sum(d.on_time)::int AS on_time, sum(d.late)::int AS late,
              sum(d.failed)::int AS failed, sum(d.missed)::int AS missed, sum(d.skipped)::int AS skipped, sum(d.hollow)::int AS hollow,
              max(d.lateness_max_ms) AS lateness_max_ms
         FROM run_daily_summaries d JOIN schedules s ON s.id = d.schedule_id
        WHERE s.deleted_at IS NULL AND d.day >= (now() AT TIME ZONE 'UTC')::date - 90
        GROUP BY s.name`,
    ),
  ]);

  const reg = new Registry();
  const window = `planned in the last ${windowSeconds >= 3600 ? `${+(windowSeconds / 3600).toFixed(2)} h` : `${windowSeconds} s`}`;
  gauge(reg, "vigil_metrics_window_seconds", "Window of the per-run aggregates (runs planned within it)").set(windowSeconds);

  const byState = gauge(reg, "vigil_runs", `Runs ${window}, by schedule and current state`, ["schedule", "state"]);
  const retries = gauge(reg, "vigil_run_retries", `Retry attempts of runs ${window}, by schedule`, ["schedule"]);
  const missed = gauge(reg, "vigil_runs_missed", `Occurrences ${window} that never started (missed), by schedule`, ["schedule"]);
  const hollow = gauge(reg, "vigil_runs_hollow", `Runs ${window} that succeeded without the expected records (hollow), by schedule`, [
    "schedule",
  ]);
  const zombie = gauge(reg, "vigil_runs_zombie", `Zombie detections (worker lost mid-run) in the window, by schedule`, ["schedule"]);
  for (const a of runs) {
    const schedule = a.schedule;
    for (const [state, n] of a.byState) byState.set({ schedule, state }, n);
    retries.set({ schedule }, a.retries);
    missed.set({ schedule }, a.byState.get("missed") ?? 0);
    hollow.set({ schedule }, a.byState.get("hollow") ?? 0);
    zombie.set({ schedule }, 0);
  }
  for (const r of zombies.rows) zombie.set({ schedule: r.schedule }, r.n);

  // Histograms over the window: a snapshot, not an ever-growing counter — read them with
  // histogram_quantile() directly, without rate().
  const histogram = (name: string, help: string, bounds: number[], pick: (a: (typeof runs)[number]) => HistogramCounts) =>
    reg.registerMetric(
      new PrecomputedHistogram({
        name,
        help,
        labelNames: ["schedule"],
        buckets: bounds,
        series: runs.filter((a) => pick(a).count > 0).map((a) => ({ labels: { schedule: a.schedule }, ...pick(a) })),
      }),
    );
  histogram(
    "vigil_run_start_lateness_seconds",
    `Start lateness (started - planned) of runs ${window}, by schedule`,
    LATENESS_BUCKETS,
    (a) => a.lateness,
  );
  histogram(
    "vigil_run_completion_gap_seconds",
    `Completion gap (finished - planned) of runs ${window}, by schedule`,
    COMPLETION_BUCKETS,
    (a) => a.gap,
  );
  histogram("vigil_run_duration_seconds", `Handler duration of runs ${window}, by schedule`, COMPLETION_BUCKETS, (a) => a.duration);

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

  const open = gauge(reg, "vigil_alerts_open", "Open (unresolved) alerts by kind and severity", ["kind", "severity"]);
  for (const kind of ALERT_KINDS) open.set({ kind, severity: ALERT_KIND_INFO[kind].severity }, 0);
  for (const a of alerts.rows) open.set({ kind: a.kind, severity: a.severity }, a.n);

  const daily90 = gauge(reg, "vigil_runs_90d", "Runs planned in the 90 UTC days before today, by schedule and outcome (daily summaries)", [
    "schedule",
    "outcome",
  ]);
  const dailyMax = gauge(
    reg,
    "vigil_run_start_lateness_90d_max_seconds",
    "Largest start lateness in the 90 days before today, by schedule",
    ["schedule"],
  );
  for (const r of daily.rows) {
    for (const outcome of ["total", "on_time", "late", "failed", "missed", "skipped", "hollow"] as const)
      daily90.set({ schedule: r.schedule, outcome }, r[outcome]);
    if (r.lateness_max_ms !== null) dailyMax.set({ schedule: r.schedule }, r.lateness_max_ms / 1000);
  }

  gauge(reg, "vigil_metrics_scrape_duration_seconds", "Time this scrape spent querying the database").set(
    (performance.now() - started) / 1000,
  );
  return reg;
}
