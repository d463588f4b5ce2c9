// Prometheus metrics, built per scrape from the database (the console keeps no state): run counts
// by schedule and state, start-lateness / completion-gap / duration histograms per schedule, queue
// depth, running/retrying/zombie/missed/hollow counts, live workers, planner lag and open alerts.
// Per-run aggregates cover a bounded window (planned in the last 24 h by default) and are computed
// in SQL, so a scrape costs a few index-range aggregates, not a row per run.
import { Gauge, Registry } from "prom-client";
import type { Queryable } from "../db/pool";
import { ALERT_KINDS, ALERT_KIND_INFO } from "../alerts/alert-kinds";
import { getQueueSummary } from "./get-queue-summary";
import { PrecomputedHistogram, cumulativeFromK, negatedBounds, type HistogramSeries } from "./precomputed-histogram";

export const METRICS_WINDOW_SECONDS = 24 * 3600;
export const LATENESS_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];
export const COMPLETION_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600];

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
  const [byState, histograms, zombies, queue, alerts] = await Promise.all([
    db.query(
      `SELECT s.name AS schedule, r.state, count(*)::int AS n, sum(greatest(r.attempt - 1, 0))::int AS retries
         FROM runs r JOIN schedules s ON s.id = r.schedule_id
        WHERE r.planned_at > now() - make_interval(secs => $1) AND r.planned_at <= now()
        GROUP BY s.name, r.state`,
      [windowSeconds],
    ),
    db.query(
      `SELECT s.name AS schedule, h.metric, width_bucket(-h.x, CASE WHEN h.metric = 'lateness' THEN $2::float8[] ELSE $3::float8[] END) AS k,
              count(*)::int AS n, sum(h.x)::float8 AS total
         FROM runs r JOIN schedules s ON s.id = r.schedule_id
        CROSS JOIN LATERAL (VALUES
          ('lateness', CASE WHEN r.kind <> 'backfill' THEN r.lateness_ms / 1000.0 END),
          ('gap', CASE WHEN r.kind <> 'backfill' THEN extract(epoch FROM r.finished_at - r.planned_at) END),
          ('duration', r.duration_ms / 1000.0)) AS h(metric, x)
        WHERE r.planned_at > now() - make_interval(secs => $1) AND r.planned_at <= now() AND h.x IS NOT NULL
        GROUP BY s.name, h.metric, k`,
      [windowSeconds, negatedBounds(LATENESS_BUCKETS), negatedBounds(COMPLETION_BUCKETS)],
    ),
    db.query(
      `SELECT s.name AS schedule, count(*)::int AS n
         FROM run_events e JOIN runs r ON r.id = e.run_id JOIN schedules s ON s.id = r.schedule_id
        WHERE e.type = 'zombie_detected' AND e.at > now() - make_interval(secs => $1)
        GROUP BY s.name`,
      [windowSeconds],
    ),
    getQueueSummary(db, opts.deadAfterMs),
    db.query(`SELECT kind, severity, count(*)::int AS n FROM alerts WHERE resolved_at IS NULL GROUP BY kind, severity`),
  ]);

  const reg = new Registry();
  const window = `planned in the last ${windowSeconds / 3600} h`;
  gauge(reg, "vigil_metrics_window_seconds", "Window of the per-run aggregates (runs planned within it)").set(windowSeconds);

  const runs = gauge(reg, "vigil_runs", `Runs ${window}, by schedule and current state`, ["schedule", "state"]);
  const retries = gauge(reg, "vigil_run_retries", `Retry attempts of runs ${window}, by schedule`, ["schedule"]);
  const missed = gauge(reg, "vigil_runs_missed", `Occurrences ${window} that never started (missed), by schedule`, ["schedule"]);
  const hollow = gauge(reg, "vigil_runs_hollow", `Runs ${window} that succeeded without the expected records (hollow), by schedule`, ["schedule"]);
  const zombie = gauge(reg, "vigil_runs_zombie", `Zombie detections (worker lost mid-run) in the window, by schedule`, ["schedule"]);
  const retriesBySchedule = new Map<string, number>();
  for (const r of byState.rows) {
    runs.set({ schedule: r.schedule, state: r.state }, r.n);
    retriesBySchedule.set(r.schedule, (retriesBySchedule.get(r.schedule) ?? 0) + r.retries);
    missed.set({ schedule: r.schedule }, 0);
    hollow.set({ schedule: r.schedule }, 0);
    zombie.set({ schedule: r.schedule }, 0);
  }
  for (const r of byState.rows) {
    if (r.state === "missed") missed.set({ schedule: r.schedule }, r.n);
    if (r.state === "hollow") hollow.set({ schedule: r.schedule }, r.n);
  }
  for (const [schedule, n] of retriesBySchedule) retries.set({ schedule }, n);
  for (const r of zombies.rows) zombie.set({ schedule: r.schedule }, r.n);

  const hist = (metric: string, bounds: number[]): HistogramSeries[] => {
    const bySchedule = new Map<string, { k: number; n: number; total: number }[]>();
    for (const r of histograms.rows.filter((h) => h.metric === metric)) {
      bySchedule.set(r.schedule, [...(bySchedule.get(r.schedule) ?? []), { k: r.k, n: r.n, total: r.total }]);
    }
    return [...bySchedule].map(([schedule, rows]) => ({
      labels: { schedule },
      cumulative: cumulativeFromK(bounds, rows),
      count: rows.reduce((a, r) => a + r.n, 0),
      sum: rows.reduce((a, r) => a + r.total, 0),
    }));
  };
  const histogram = (name: string, help: string, bounds: number[], metric: string) =>
    reg.registerMetric(new PrecomputedHistogram({ name, help, labelNames: ["schedule"], buckets: bounds, series: hist(metric, bounds) }));
  histogram("vigil_run_start_lateness_seconds", `Start lateness (started - planned) of runs ${window}, by schedule`, LATENESS_BUCKETS, "lateness");
  histogram("vigil_run_completion_gap_seconds", `Completion gap (finished - planned) of runs ${window}, by schedule`, COMPLETION_BUCKETS, "gap");
  histogram("vigil_run_duration_seconds", `Handler duration of runs ${window}, by schedule`, COMPLETION_BUCKETS, "duration");

  gauge(reg, "vigil_runs_running", "Runs executing now").set(queue.runsRunning);
  gauge(reg, "vigil_runs_retrying", "Runs waiting for their next attempt now").set(queue.runsRetrying);
  const depth = gauge(reg, "vigil_queue_depth", "Work waiting to start now: queued runs (runs) and pg-boss jobs not yet fetched (pgboss)", ["source"]);
  depth.set({ source: "runs" }, queue.runsQueued);
  if (queue.jobsQueued !== null) depth.set({ source: "pgboss" }, queue.jobsQueued);
  gauge(reg, "vigil_runs_waiting", "Queued runs held back by their overlap policy or concurrency limit").set(queue.runsWaiting);
  gauge(reg, "vigil_workers_live", "Workers heartbeating within the dead-after window").set(queue.liveWorkers);
  const lag = gauge(reg, "vigil_planner_lag_seconds", "Planner lag reported by each live worker", ["worker"]);
  for (const w of queue.plannerLag) lag.set({ worker: w.workerId }, w.plannerLagMs / 1000);
  gauge(reg, "vigil_planner_lag_max_seconds", "Largest planner lag among live workers").set(Math.max(0, ...queue.plannerLag.map((w) => w.plannerLagMs)) / 1000);

  const open = gauge(reg, "vigil_alerts_open", "Open (unresolved) alerts by kind and severity", ["kind", "severity"]);
  for (const kind of ALERT_KINDS) open.set({ kind, severity: ALERT_KIND_INFO[kind].severity }, 0);
  for (const a of alerts.rows) open.set({ kind: a.kind, severity: a.severity }, a.n);

  gauge(reg, "vigil_metrics_scrape_duration_seconds", "Time this scrape spent querying the database").set((performance.now() - started) / 1000);
  return reg;
}
