// What Vigil alerts on, how loud each kind is, and how each one clears. Shared by the evaluator,
// the API and the console (pure data, no database).
export const ALERT_KINDS = [
  "late", // a run started later than lateness_max_ms, or p95 start lateness over the window broke lateness_p95_slo_ms
  "completion_deadline", // a run finished (or had not finished) more than completion_deadline_seconds after planned
  "missed", // a due occurrence never started before its starting deadline
  "hollow", // a run succeeded but reported fewer records than expect_records_min
  "zombie", // a running run's worker stopped heartbeating and the reaper put it down
  "failures", // N consecutive runs failed, timed out or died (the schedule's failure_alert_threshold, else VIGIL_ALERT_FAILURE_THRESHOLD)
  "no_worker", // no worker has heartbeated within the dead-after window: nothing plans or executes
  "planner_lag", // a live worker's planner is further behind than the threshold
  "no_handler_worker", // a schedule's runs are due but no live worker (of its team's pool, if any) serves its handler
  "cadence", // a schedule's recorded fires over a recent window differ from its plan (a fire without a row, or drift)
] as const;

export type AlertKind = (typeof ALERT_KINDS)[number];

/** What happened to an alert, as a delivery reports it ("acknowledged" goes only to PagerDuty channels). */
export type AlertEvent = "opened" | "resolved" | "acknowledged";

export const ALERT_SEVERITIES = ["warning", "critical"] as const;
export type AlertSeverity = (typeof ALERT_SEVERITIES)[number];

export interface AlertKindInfo {
  label: string;
  severity: AlertSeverity;
  /** When an open alert of this kind resolves, in words for the alerts page. */
  clears: string;
}

export const ALERT_KIND_INFO: Record<AlertKind, AlertKindInfo> = {
  late: {
    label: "Late",
    severity: "warning",
    clears: "a later run starts within the limit, or p95 lateness over the window is back within the objective",
  },
  completion_deadline: {
    label: "Completion deadline",
    severity: "warning",
    clears: "a later run completes successfully within the deadline",
  },
  missed: { label: "Missed", severity: "critical", clears: "a later run of the schedule starts" },
  hollow: { label: "Hollow success", severity: "warning", clears: "a later run succeeds with the expected records" },
  zombie: { label: "Zombie", severity: "critical", clears: "a run of the schedule finishes on a live worker after the detection" },
  failures: { label: "Consecutive failures", severity: "critical", clears: "a run of the schedule succeeds" },
  no_worker: { label: "No live worker", severity: "critical", clears: "a worker heartbeats again" },
  planner_lag: { label: "Planner behind", severity: "warning", clears: "every live worker's planner lag is back under the threshold" },
  no_handler_worker: {
    label: "No worker for handler",
    severity: "critical",
    clears: "a live worker (of the team's worker pool, if it has one) serves the handler again, or no run of the schedule is waiting",
  },
  cadence: {
    label: "Cadence",
    severity: "critical",
    clears: "the schedule's recorded fires over the checked window match its forecast again",
  },
};

export function isAlertKind(v: string): v is AlertKind {
  return (ALERT_KINDS as readonly string[]).includes(v);
}
