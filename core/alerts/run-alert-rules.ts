// Alerts caused by individual runs: a late start, a blown completion deadline, a missed firing, a
// hollow success, a zombie. Each rule names its "bad" runs and the "good" run that clears it.
//
// A run-caused alert is keyed per schedule (`<rule>:<scheduleId>`) and remembers the newest cause it
// covered (alerts.last_cause_at). A bad run newer than that watermark opens the alert (or joins the
// open one); an open alert resolves when a good run comes after its newest cause. A cause at or
// before the watermark never raises again, so a late run followed by an on-time one between two
// evaluations still yields exactly one alert, opened and resolved in the same pass.
import type { AlertKind } from "./alert-kinds";
import { formatDuration } from "../format-duration";

export interface RunAlertRule {
  id: string;
  kind: AlertKind;
  /** Dedupe key prefix; the schedule id follows. */
  prefix: string;
  /** How far back ($1, seconds) bad runs are looked for. */
  lookbackSeconds: number;
  /**
   * SELECT schedule_id, run_id, mark, extra: bad runs newer than the watermark. `seen` (schedule_id, mark) holds
   * each schedule's watermark; prune with it as early as the rule's index allows. `extra` is jsonb or null.
   */
  badSql: string;
  /** The detail of the newest cause (aliases: r its run, s its schedule), built only for that one row. */
  detailSql: string;
  /** Schedules that keep this expectation (alias s); an alert of a schedule that no longer does resolves. */
  configSql: string;
  /** A run g of the alert's schedule that clears alert a (aliases: a alerts, s schedules, g runs). */
  goodSql: string;
  goodOrder: string;
  /** Resolution text when a good run cleared it. */
  goodPhrase: string;
  message(scheduleName: string, detail: Record<string, unknown>): string;
}

const DAY = 24 * 3600;
/** How long evaluation may pause (all workers gone, a stalled pass) before a turned-bad run is no longer looked at. */
export const PASS_GAP_MARGIN = 600;

const num = (v: unknown): number => Number(v ?? 0);
const when = (v: unknown): string => (typeof v === "string" ? v.replace(/\.\d+(?=[Z+-])/, "").replace("T", " ") : String(v));

/**
 * The bad runs of each configured schedule (`configured`, an SQL condition on s): scheduled, first-try runs planned
 * after `since` (and after the schedule's watermark) up to now that meet `bad` (an SQL condition on r and s).
 */
function recentRunsPerSchedule(since: string, bad: string, configured: string): string {
  return `
    SELECT s.id AS schedule_id, r.id AS run_id, r.planned_at AS mark, NULL::jsonb AS extra
      FROM schedules s
      LEFT JOIN seen w ON w.schedule_id = s.id
     CROSS JOIN LATERAL (
       SELECT r.id, r.planned_at FROM runs r
        WHERE r.schedule_id = s.id AND r.kind <> 'backfill' AND r.reruns = 0
          AND r.planned_at > greatest(${since}, w.mark)
          AND r.planned_at <= now()
          AND ${bad}
        OFFSET 0) r
     WHERE s.deleted_at IS NULL AND ${configured}`;
}

export const lateMaxRule: RunAlertRule = {
  id: "late:max",
  kind: "late",
  prefix: "late:max:",
  // A run turns late at planned + limit, seen then even if it has not started, so each pass only
  // needs runs planned within limit + a margin for gaps between passes (normally 2 s apart).
  // LATERAL per schedule: each schedule's window is an index range on (schedule_id, planned_at),
  // starting after its watermark; OFFSET 0 keeps Postgres from flattening it into one scan of every
  // run (measured at 1.4 M runs: 2.9 s flattened, 0.4 s per schedule with a 1 h margin).
  lookbackSeconds: PASS_GAP_MARGIN,
  badSql: recentRunsPerSchedule(
    "now() - make_interval(secs => $1) - s.lateness_max_ms * interval '1 millisecond'",
    `(r.lateness_ms > s.lateness_max_ms
      OR (r.started_at IS NULL AND r.state IN ('planned', 'queued')
          AND now() > r.planned_at + s.lateness_max_ms * interval '1 millisecond'))`,
    "s.lateness_max_ms IS NOT NULL",
  ),
  detailSql: `jsonb_build_object('rule', 'max', 'plannedAt', r.planned_at, 'limitMs', s.lateness_max_ms,
                'started', r.started_at IS NOT NULL,
                'latenessMs', coalesce(r.lateness_ms, (extract(epoch FROM now() - r.planned_at) * 1000)::bigint))`,
  configSql: "s.lateness_max_ms IS NOT NULL",
  goodSql: "g.planned_at > a.last_cause_at AND g.kind <> 'backfill' AND g.reruns = 0 AND g.lateness_ms <= s.lateness_max_ms",
  goodOrder: "g.planned_at",
  goodPhrase: "A later run started within the lateness limit",
  message: (name, d) =>
    d.started
      ? `${name}: a run planned at ${when(d.plannedAt)} started ${formatDuration(num(d.latenessMs))} late (limit ${formatDuration(num(d.limitMs))})`
      : `${name}: a run planned at ${when(d.plannedAt)} has not started ${formatDuration(num(d.latenessMs))} after its planned time (limit ${formatDuration(num(d.limitMs))})`,
};

export const completionDeadlineRule: RunAlertRule = {
  id: "completion_deadline",
  kind: "completion_deadline",
  prefix: "completion_deadline:",
  // Likewise: a run turns bad at planned + deadline, finished or not.
  lookbackSeconds: PASS_GAP_MARGIN,
  badSql: recentRunsPerSchedule(
    "now() - make_interval(secs => $1 + s.completion_deadline_seconds)",
    `((r.finished_at IS NOT NULL AND r.state NOT IN ('cancelled', 'skipped_overlap', 'paused', 'excluded', 'missed')
       AND r.finished_at > r.planned_at + make_interval(secs => s.completion_deadline_seconds))
      OR (r.finished_at IS NULL AND r.state IN ('planned', 'queued', 'running', 'retrying')
          AND now() > r.planned_at + make_interval(secs => s.completion_deadline_seconds)))`,
    "s.completion_deadline_seconds IS NOT NULL",
  ),
  detailSql: `jsonb_build_object('plannedAt', r.planned_at, 'deadlineSeconds', s.completion_deadline_seconds,
                'finished', r.finished_at IS NOT NULL, 'state', r.state,
                'gapMs', (extract(epoch FROM coalesce(r.finished_at, now()) - r.planned_at) * 1000)::bigint)`,
  configSql: "s.completion_deadline_seconds IS NOT NULL",
  goodSql: `g.planned_at > a.last_cause_at AND g.state IN ('succeeded', 'hollow')
            AND g.finished_at <= g.planned_at + make_interval(secs => s.completion_deadline_seconds)`,
  goodOrder: "g.planned_at",
  goodPhrase: "A later run completed within the deadline",
  message: (name, d) =>
    d.finished
      ? `${name}: a run planned at ${when(d.plannedAt)} finished ${formatDuration(num(d.gapMs))} after its planned time (deadline ${formatDuration(num(d.deadlineSeconds) * 1000)})`
      : `${name}: a run planned at ${when(d.plannedAt)} has not finished ${formatDuration(num(d.gapMs))} after its planned time (deadline ${formatDuration(num(d.deadlineSeconds) * 1000)})`,
};

// Missed and hollow runs are found through the (state, due_at) index: a day of them is few rows.
export const missedRule: RunAlertRule = {
  id: "missed",
  kind: "missed",
  prefix: "missed:",
  lookbackSeconds: DAY,
  badSql: `
    SELECT r.schedule_id, r.id AS run_id, r.planned_at AS mark, NULL::jsonb AS extra
      FROM runs r
      LEFT JOIN seen w ON w.schedule_id = r.schedule_id
     WHERE r.state = 'missed' AND r.due_at > now() - make_interval(secs => $1)
       AND (w.mark IS NULL OR r.planned_at > w.mark)`,
  // A chained occurrence missed at its wait deadline (core/runs/chain/) says what it waited for.
  detailSql: `jsonb_build_object('plannedAt', r.planned_at, 'dueAt', r.due_at, 'runKind', r.kind,
    'chainReason', (SELECT e.data->>'reason' FROM run_events e WHERE e.run_id = r.id AND e.type = 'missed' AND e.data->>'chain' = 'missed' LIMIT 1))`,
  configSql: "true",
  goodSql: "g.planned_at > a.last_cause_at AND g.started_at IS NOT NULL",
  goodOrder: "g.planned_at",
  goodPhrase: "A later run started",
  message: (name, d) =>
    typeof d.chainReason === "string"
      ? `${name}: the occurrence planned at ${when(d.plannedAt)} was missed at its wait deadline, still waiting: ${d.chainReason}`
      : `${name}: the occurrence planned at ${when(d.plannedAt)} never started before its starting deadline (missed)`,
};

export const hollowRule: RunAlertRule = {
  id: "hollow",
  kind: "hollow",
  prefix: "hollow:",
  lookbackSeconds: DAY,
  badSql: `
    SELECT r.schedule_id, r.id AS run_id, r.planned_at AS mark, NULL::jsonb AS extra
      FROM runs r
      LEFT JOIN seen w ON w.schedule_id = r.schedule_id
     WHERE r.state = 'hollow' AND r.due_at > now() - make_interval(secs => $1)
       AND (w.mark IS NULL OR r.planned_at > w.mark)`,
  detailSql: "jsonb_build_object('plannedAt', r.planned_at, 'records', r.records, 'expectRecordsMin', s.expect_records_min)",
  configSql: "true",
  goodSql: "g.planned_at > a.last_cause_at AND g.state = 'succeeded'",
  goodOrder: "g.planned_at",
  goodPhrase: "A later run succeeded with the expected records",
  message: (name, d) =>
    `${name}: the run planned at ${when(d.plannedAt)} succeeded but reported ${d.records ?? "no"} records` +
    (d.expectRecordsMin !== null && d.expectRecordsMin !== undefined ? ` (expected at least ${d.expectRecordsMin})` : "") +
    " — a hollow success",
};

export const zombieRule: RunAlertRule = {
  id: "zombie",
  kind: "zombie",
  prefix: "zombie:",
  lookbackSeconds: DAY,
  // The reaper may retry a zombie (the run continues) or end it as 'zombie'; the detection event is
  // the cause either way (found through a partial index). Runs ended as zombie without the event are
  // covered by the second branch.
  badSql: `
    SELECT r.schedule_id, r.id AS run_id, e.at AS mark, jsonb_build_object('workerId', e.worker_id, 'attempt', e.attempt, 'detail', e.message) AS extra
      FROM run_events e
      JOIN runs r ON r.id = e.run_id
      LEFT JOIN seen w ON w.schedule_id = r.schedule_id
     WHERE e.type = 'zombie_detected' AND e.at > now() - make_interval(secs => $1)
       AND (w.mark IS NULL OR e.at > w.mark)
    UNION ALL
    SELECT r.schedule_id, r.id AS run_id, coalesce(r.finished_at, r.heartbeat_at, r.due_at) AS mark,
           jsonb_build_object('workerId', r.worker_id, 'attempt', r.attempt, 'detail', '') AS extra
      FROM runs r
      LEFT JOIN seen w ON w.schedule_id = r.schedule_id
     WHERE r.state = 'zombie' AND r.due_at > now() - make_interval(secs => $1)
       AND (w.mark IS NULL OR coalesce(r.finished_at, r.heartbeat_at, r.due_at) > w.mark)
       AND NOT EXISTS (SELECT 1 FROM run_events e WHERE e.run_id = r.id AND e.type = 'zombie_detected')`,
  detailSql: "jsonb_build_object('plannedAt', r.planned_at)",
  configSql: "true",
  goodSql: `g.finished_at > a.last_cause_at AND g.planned_at > a.last_cause_at - interval '1 day'
            AND g.state IN ('succeeded', 'hollow', 'failed', 'timed_out')`,
  goodOrder: "g.finished_at",
  goodPhrase: "A run of the schedule finished on a live worker after the detection",
  message: (name, d) =>
    `${name}: the run planned at ${when(d.plannedAt)} lost its worker${d.workerId ? ` (${d.workerId})` : ""} mid-run` +
    ` (attempt ${d.attempt ?? "?"}); its heartbeat went stale and it was reaped as a zombie`,
};

export const RUN_ALERT_RULES: readonly RunAlertRule[] = [lateMaxRule, completionDeadlineRule, missedRule, hollowRule, zombieRule];
