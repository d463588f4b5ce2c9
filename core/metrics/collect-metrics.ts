// Prometheus metrics, built per scrape from the database (the console keeps no state). Cardinality is bounded
// (issue 17; the series and their counts are listed in the README): fleet-wide histograms and counts by state
// carry no schedule label; per schedule only the trouble counters alerting needs (four counters per live schedule,
// read with increase()); full per-schedule histograms only for schedules tagged METRICS_DETAIL_TAG. Per-run
// aggregates cover a bounded window (runs planned in the last hour by default). The fleet-wide figures come from a
// per-minute read model (read-fleet-runs.ts) and the per-schedule trouble counters from one row per schedule
// (get-schedule-trouble-counters.ts), so a scrape reads neither the window's runs nor its troubled ones.
// Every series about a schedule also carries its team's name (`team`: as many values as teams, a handful), and a
// scrape by a caller who sees only some teams (core/teams/team-access.ts visibleTeamIds: a team member, a token bound
// to a team) gets only those teams' schedule series. The fleet-wide series are installation totals without names.
import { Gauge, Registry } from "prom-client";
import type { Queryable } from "../db/pool";
import { ALERT_KINDS, ALERT_KIND_INFO } from "../alerts/alert-kinds";
import { getQueueSummary } from "./get-queue-summary";
import { COMPLETION_BUCKETS, LATENESS_BUCKETS, aggregateRuns, type HistogramCounts } from "./aggregate-runs";
import { aggregateFleet, type FleetAggregate } from "./aggregate-fleet";
import { FLEET_MODEL_MAX_WINDOW_SECONDS, readFleetRuns } from "./read-fleet-runs";
import { getScheduleTroubleCounters, type ScheduleTroubleCounters } from "./get-schedule-trouble-counters";
import { getDailyTotals } from "./get-daily-totals";
import { PrecomputedHistogram } from "./precomputed-histogram";
import { PrecomputedGauge } from "./precomputed-gauge";
import { ScrapeRegistry } from "./scrape-registry";

/** Default window; VIGIL_METRICS_WINDOW_SECONDS sets it (24 h of 1,000 schedules firing every minute scans 1.4 M runs). */
export const METRICS_WINDOW_SECONDS = 3600;
/** Schedules carrying this tag also get per-schedule histograms and counts by state (opt-in detail). */
export const METRICS_DETAIL_TAG = "metrics:detail";

interface Options {
  deadAfterMs: number;
  windowSeconds?: number;
  /** Only these teams' schedule series; null or absent: every team's. */
  teamIds?: readonly string[] | null;
}

/** Fleet figures from the per-minute read model when the window fits in it, else aggregated over the window's runs. */
async function readFleet(db: Queryable, windowSeconds: number): Promise<Omit<FleetAggregate, "trouble">> {
  if (windowSeconds > FLEET_MODEL_MAX_WINDOW_SECONDS) return aggregateFleet(db, windowSeconds);
  return readFleetRuns(db, windowSeconds);
}

function gauge(reg: Registry, name: string, help: string, labelNames: string[] = []): Gauge<string> {
  return new Gauge({ name, help, labelNames, registers: [reg] });
}

export async function collectMetrics(db: Queryable, opts: Options): Promise<ScrapeRegistry> {
  const started = performance.now();
  const windowSeconds = opts.windowSeconds ?? METRICS_WINDOW_SECONDS;
  const teamIds = opts.teamIds ?? null;
  const visible = (teamId: string | null) => teamIds === null || (teamId !== null && teamIds.includes(teamId));
  const [fleet, allTrouble, allDetail, zombies, queue, alerts, daily] = await Promise.all([
    readFleet(db, windowSeconds),
    getScheduleTroubleCounters(db),
    aggregateRuns(db, windowSeconds, METRICS_DETAIL_TAG),
    db.query<{ schedule: string; team: string; team_id: string; n: number }>(
      `SELECT s.name AS schedule, t.name AS team, s.team_id, count(*)::int AS n
         FROM run_events e JOIN runs r ON r.id = e.run_id JOIN schedules s ON s.id = r.schedule_id JOIN teams t ON t.id = s.team_id
        WHERE e.type = 'zombie_detected' AND e.at > now() - make_interval(secs => $1)
        GROUP BY s.name, t.name, s.team_id`,
      [windowSeconds],
    ),
    getQueueSummary(db, opts.deadAfterMs),
    db.query<{ kind: string; severity: string; n: number }>(
      `SELECT kind, severity, count(*)::int AS n FROM alerts WHERE resolved_at IS NULL GROUP BY kind, severity`,
    ),
    // The daily summaries (core/retention/): outlive the runs, so the last 90 days stay visible after retention.
    // Fleet-wide by outcome; per schedule only for the opt-in detail tag (bounded cardinality, README "Metrics").
    getDailyTotals(db, METRICS_DETAIL_TAG),
  ]);

  const trouble = teamIds === null ? allTrouble : allTrouble.filter((t) => visible(t.team_id));
  const detail = allDetail.filter((a) => visible(a.teamId));
  const reg = new ScrapeRegistry();
  const window = `planned in the last ${windowSeconds >= 3600 ? `${+(windowSeconds / 3600).toFixed(2)} h` : `${windowSeconds} s`}`;
  gauge(reg, "vigil_metrics_window_seconds", "Window of the per-run aggregates (runs planned within it)").set(windowSeconds);

  const byState = gauge(reg, "vigil_runs", `Runs ${window}, by current state (all schedules)`, ["state"]);
  for (const [state, n] of fleet.byState) byState.set({ state }, n);
  gauge(reg, "vigil_run_retries", `Retry attempts of runs ${window} (all schedules)`).set(fleet.retries);

  // Per schedule: what alert rules need, as counters of trouble events since the schedule existed (read them with
  // increase(…[1h]) for the last hour), every live schedule's four, 0 included. Rendered as text (4,000 samples at
  // 1,000 schedules; scrape-registry.ts).
  const perSchedule = (name: string, help: string, pick: (t: ScheduleTroubleCounters) => number) =>
    reg.addTextFamily({
      name,
      help: `${help}, by schedule (every live schedule; read with increase())`,
      type: "counter",
      labelName: "schedule",
      samples: trouble.map((t) => ({ label: t.schedule, team: t.team, value: pick(t) })),
    });
  perSchedule("vigil_runs_missed_total", "Occurrences that became missed (never started before their deadline)", (t) => t.missed);
  perSchedule("vigil_runs_hollow_total", "Runs that became hollow (succeeded without the expected records)", (t) => t.hollow);
  perSchedule(
    "vigil_runs_failed_total",
    "Runs that failed or timed out (final outcome; a re-run that fails counts again)",
    (t) => t.failed,
  );
  perSchedule(
    "vigil_runs_late_total",
    "Runs that started late (beyond their jitter window + 1 s; backfills and re-runs excluded)",
    (t) => t.late,
  );
  reg.registerMetric(
    new PrecomputedGauge({
      name: "vigil_runs_zombie",
      help: `Zombie detections (worker lost mid-run) in the window, by schedule (only schedules with any)`,
      labelNames: ["schedule", "team"],
      samples: zombies.rows.filter((r) => visible(r.team_id)).map((r) => ({ labels: { schedule: r.schedule, team: r.team }, value: r.n })),
    }),
  );

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
    "team",
    "state",
  ]);
  const detailRetries = gauge(reg, "vigil_schedule_run_retries", `Retry attempts ${window}, by schedule (tagged ${METRICS_DETAIL_TAG})`, [
    "schedule",
    "team",
  ]);
  for (const a of detail) {
    for (const [state, n] of a.byState) detailState.set({ schedule: a.schedule, team: a.team, state }, n);
    detailRetries.set({ schedule: a.schedule, team: a.team }, a.retries);
  }
  const histogram = (name: string, help: string, bounds: number[], pick: (a: (typeof detail)[number]) => HistogramCounts) =>
    reg.registerMetric(
      new PrecomputedHistogram({
        name,
        help,
        labelNames: ["schedule", "team"],
        buckets: bounds,
        series: detail.filter((a) => pick(a).count > 0).map((a) => ({ labels: { schedule: a.schedule, team: a.team }, ...pick(a) })),
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
  const depth = gauge(
    reg,
    "vigil_queue_depth",
    "Work due and not started: queued runs whose time has come (runs) and pg-boss jobs that may start and are not fetched (pgboss)",
    ["source"],
  );
  depth.set({ source: "runs" }, queue.runsQueued);
  if (queue.jobsQueued !== null) depth.set({ source: "pgboss" }, queue.jobsQueued);
  gauge(reg, "vigil_runs_enqueued_ahead", "Queued runs not due yet (the planner enqueues each occurrence ahead of its time)").set(
    queue.runsAhead,
  );
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
    ["schedule", "team", "outcome"],
  );
  const dailyMax = gauge(
    reg,
    "vigil_run_start_lateness_90d_max_seconds",
    `Largest start lateness in the 90 days before today, by schedule (tagged ${METRICS_DETAIL_TAG})`,
    ["schedule", "team"],
  );
  for (const outcome of outcomes)
    fleet90.set(
      { outcome },
      daily.reduce((n, r) => n + r[outcome], 0),
    );
  for (const r of daily) {
    if (r.schedule === null || !visible(r.team_id)) continue;
    const labels = { schedule: r.schedule, team: r.team ?? "" };
    for (const outcome of outcomes) daily90.set({ ...labels, outcome }, r[outcome]);
    if (r.lateness_max_ms !== null) dailyMax.set(labels, r.lateness_max_ms / 1000);
  }

  gauge(reg, "vigil_metrics_scrape_duration_seconds", "Time this scrape spent querying the database").set(
    (performance.now() - started) / 1000,
  );
  return reg;
}
