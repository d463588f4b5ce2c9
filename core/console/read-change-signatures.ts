// One cheap read that says, per change topic, "what the console shows now" as a short text: two reads in a row
// with the same text for a topic mean nothing of that topic changed in between. The change feed
// (console-change-feed.ts) runs it once a second per console process, however many tabs are open.
//
// Why a poll of counters and not a NOTIFY from the triggers: a NOTIFY per run transition would add work to every
// finishing run (and the queue lock taken at commit serialises the committing transactions that notified), while
// this read costs the same whether one run or a thousand finished in the second. It adds no statement to a run.
import type { Queryable } from "../db/pool";
import { LATE_AFTER_MS } from "../runs/lateness";
import { EVERY_TEAM, type ChangeTopic, type TeamTopic } from "./change-topics";
import { ATTENTION_SINCE_SQL, CLOCK_SQL } from "./clock-boundaries";

export type ChangeSignatures = Record<ChangeTopic, string>;

export interface ChangeRead {
  signatures: ChangeSignatures;
  /** vigil_console_version's value: how many run or schedule changes there were (the feed's "busy" measure). */
  runsVersion: number;
  /** The transactions of this database in progress (runningTransactions). */
  running: string[];
}
export async function readChangeSignatures(db: Queryable, deadAfterMs: number): Promise<ChangeRead> {
  const { rows } = await db.query<{
    runs: string;
    runs_version: string;
    schedules: string;
    attention: string;
    alerts: string;
    workers: string;
    live: number;
    running: string[] | null;
  }>(
    // runs: the sequence the triggers of 20261202700000_console_read_models bump (no row lock, no table read).
    // schedules: the sequence of 20261205500000 and the next pause or maintenance window to end by the clock.
    // attention: the header window's oldest entries (clock-boundaries.ts: a few index probes).
    // alerts: open alerts are few (index on resolved_at, opened_at); the newest resolution covers the closed ones;
    // webhook deliveries by the newest one and the pending ones (index on state): a delivery that ends leaves those.
    // workers: one row per worker process; the heartbeat itself is left out, only whether it is live.
    `SELECT (SELECT last_value::text || is_called::text FROM vigil_console_version) AS runs,
            (SELECT last_value::text FROM vigil_console_version) AS runs_version,
            (SELECT last_value::text || is_called::text FROM vigil_console_schedules_version) || '/' || ${CLOCK_SQL.pauses} AS schedules,
            ${CLOCK_SQL.attention} AS attention,
            (SELECT count(*)::text || '.' || coalesce(sum(occurrences), 0)::text || '.' || count(acknowledged_at)::text || '.' ||
                    coalesce(max(opened_at)::text, '') || '.' || coalesce(max(last_seen_at)::text, '') || '.' ||
                    coalesce(max(acknowledged_at)::text, '') || '.' || count(*) FILTER (WHERE severity = 'critical')::text
               FROM alerts WHERE resolved_at IS NULL)
              || '/' || coalesce((SELECT max(resolved_at)::text FROM alerts WHERE resolved_at IS NOT NULL), '')
              || '/' || coalesce((SELECT max(id)::text FROM alert_deliveries), '')
              || '/' || (SELECT count(*)::text || '.' || coalesce(sum(attempts), 0)::text || '.' || coalesce(max(next_attempt_at)::text, '')
                           FROM alert_deliveries WHERE state = 'pending') AS alerts,
            coalesce((SELECT md5(string_agg(id || ':' || state || ':' || (stopped_at IS NULL)::text || ':' || live::text, ',' ORDER BY id))
                        FROM (SELECT id, state, stopped_at,
                                     heartbeat_at > clock_timestamp() - make_interval(secs => $1 / 1000.0) AS live
                                FROM workers
                               -- Rows silent for a day no longer change (a worker comes back under a new id).
                               WHERE heartbeat_at > clock_timestamp() - interval '1 day') w), '') AS workers,
            (SELECT count(*)::int FROM workers
              WHERE stopped_at IS NULL AND state <> 'stopped' AND heartbeat_at > clock_timestamp() - make_interval(secs => $1 / 1000.0)) AS live,
            (${RUNNING_SQL}) AS running`,
    [deadAfterMs],
  );
  const r = rows[0]!;
  return {
    signatures: {
      runs: r.runs,
      schedules: r.schedules,
      attention: r.attention,
      alerts: r.alerts,
      workers: r.workers,
      health: `db up, worker ${r.live > 0 ? "up" : "down"}`,
    },
    runsVersion: Number(r.runs_version),
    running: r.running ?? [],
  };
}

// Transactions of this database that hold a transaction id (have written) and are still in progress. A writer is
// given its id at its first write, before its triggers bump a sequence, so one whose bump a read saw is in this list
// (read afterwards) until it commits or rolls back. This database only: a long transaction elsewhere on the cluster
// never bumps these sequences. Every role sees the backend_xid of every session (another role's query text it does
// not): the console's login sees the worker's transactions without pg_read_all_stats
// (console-change-feed-roles.db.test.ts).
const RUNNING_SQL = `SELECT array_agg(backend_xid::text) FROM pg_stat_activity
                      WHERE datname = current_database() AND backend_xid IS NOT NULL AND pid <> pg_backend_pid()`;

/**
 * The transactions in progress now, read after the caller's read of the sequences: once none of them is in progress
 * any more, whatever that read saw is committed (or rolled back) and visible to every new snapshot (the change
 * feed's "settled", console-change-feed.ts).
 */
export async function runningTransactions(db: Queryable): Promise<string[]> {
  const { rows } = await db.query<{ running: string[] | null }>(`SELECT (${RUNNING_SQL}) AS running`);
  return rows[0]!.running ?? [];
}

/** Per team topic: per team id (EVERY_TEAM for what every subscriber sees) a short text, as ChangeSignatures. */
export type TeamSignatures = Map<TeamTopic, Map<string, string>>;

// Each part below yields rows (k: a team id or EVERY_TEAM, v: a short text); a team's signature of a topic is its
// parts' texts. Order-independent sums of hashes stand for sets of rows: one changed row changes its team's sum.
const UNFINISHED = `('planned', 'queued', 'running', 'retrying')`;
const SCHEDULE_ROWS = `SELECT team_id::text AS k, 's' || count(*) || '.' || coalesce(sum(hashtext(
                              id::text || revision || updated_at || coalesce(paused_at::text, '') || coalesce(paused_until::text, '') ||
                              coalesce(deleted_at::text, '') || enabled || name || tags::text || coalesce(maintenance_id::text, ''))), 0) AS v
                         FROM schedules GROUP BY team_id`;
const TEAM_PARTS: Record<TeamTopic, string[]> = {
  // What vigil_console_version follows: a run's state, times, attempt, wait or cancel request (its unfinished runs,
  // which is where nearly every transition happens, and the runs that ended: each schedule's last run and the recent
  // hours' outcome counts), and its schedules' definitions.
  runs: [
    `SELECT s.team_id::text, 'u' || count(*) || '.' || sum(hashtext(r.id::text || r.state || r.attempt || coalesce(r.wait_reason, '') ||
                                   coalesce(r.started_at::text, '') || coalesce(r.cancel_requested_at::text, '')))
       FROM runs r JOIN schedules s ON s.id = r.schedule_id WHERE r.state IN ${UNFINISHED} GROUP BY s.team_id`,
    `SELECT s.team_id::text, 'l' || count(*) || '.' || sum(hashtext(l.run_id::text || l.state || coalesce(l.finished_at::text, '')))
       FROM schedule_last_runs l JOIN schedules s ON s.id = l.schedule_id GROUP BY s.team_id`,
    `SELECT s.team_id::text, 'h' || sum(hashtext(h.schedule_id::text || h.hour || '.' || h.late || '.' || h.missed || '.' || h.hollow || '.' || h.failed))
       FROM schedule_hourly_outcomes h JOIN schedules s ON s.id = h.schedule_id
      WHERE h.hour >= statement_timestamp() - interval '25 hours' GROUP BY s.team_id`,
    SCHEDULE_ROWS,
  ],
  // What vigil_console_schedules_version follows (schedules, their calendars and dependencies, calendars: by the
  // owner's team and by the teams whose schedules use them), the pauses still ahead by the clock, and the maintenance
  // windows, which are no team's (tag-wide): every subscriber's.
  schedules: [
    SCHEDULE_ROWS,
    `SELECT team_id::text, 'p' || count(*) FROM schedules
      WHERE paused_at IS NOT NULL AND paused_until > statement_timestamp() AND deleted_at IS NULL GROUP BY team_id`,
    `SELECT team_id::text, 'c' || count(*) || '.' || sum(hashtext(id::text || revision || updated_at)) FROM calendars GROUP BY team_id`,
    `SELECT s.team_id::text, 'k' || count(*) || '.' || sum(hashtext(x.t))
       FROM (SELECT schedule_id, calendar_id::text || policy || "position" || c.revision || c.updated_at AS t
               FROM schedule_calendars JOIN calendars c ON c.id = calendar_id
             UNION ALL
             SELECT schedule_id, upstream_id::text || condition || mapping || coalesce(mapping_timezone, '') || "position"
               FROM schedule_dependencies) x
       JOIN schedules s ON s.id = x.schedule_id GROUP BY s.team_id`,
    `SELECT '${EVERY_TEAM}', 'm' || count(*) || '.' || coalesce(max(started_at)::text, '') || '.' || coalesce(max(ended_at)::text, '') || '.' ||
            count(*) FILTER (WHERE ended_at IS NULL AND (until IS NULL OR until > statement_timestamp())) || '.' ||
            coalesce(sum(hashtext(coalesce(until::text, '') || coalesce(tag, ''))) FILTER (WHERE ended_at IS NULL), 0)
       FROM maintenance_windows`,
  ],
  // The header's window per team: its oldest troubled run and oldest late start (clock-boundaries.ts).
  attention: [
    `SELECT s.team_id::text, 't' || min(r.updated_at) FROM runs r JOIN schedules s ON s.id = r.schedule_id
      WHERE r.state IN ('missed', 'hollow', 'zombie', 'failed', 'timed_out') AND r.updated_at >= ${ATTENTION_SINCE_SQL} GROUP BY s.team_id`,
    `SELECT s.team_id::text, 'l' || min(r.started_at) FROM runs r JOIN schedules s ON s.id = r.schedule_id
      WHERE r.lateness_ms > ${LATE_AFTER_MS} AND r.started_at >= ${ATTENTION_SINCE_SQL} GROUP BY s.team_id`,
  ],
  // Through the alert's schedule; an alert about no schedule (no worker, planner lag) is every subscriber's, as the
  // alert lists show it to everyone who sees alerts (core/alerts/list-alerts.ts). Open alerts are few; a resolution
  // is recent when the feed reads it; webhook deliveries by the pending ones (a delivery that ends leaves them).
  alerts: [
    `SELECT coalesce(s.team_id::text, '${EVERY_TEAM}'), 'o' || count(*) || '.' ||
            sum(hashtext(a.id::text || a.occurrences || a.last_seen_at || a.severity || coalesce(a.acknowledged_at::text, '')))
       FROM alerts a LEFT JOIN schedules s ON s.id = a.schedule_id WHERE a.resolved_at IS NULL GROUP BY 1`,
    `SELECT coalesce(s.team_id::text, '${EVERY_TEAM}'), 'r' || count(*) || '.' || max(a.resolved_at)
       FROM alerts a LEFT JOIN schedules s ON s.id = a.schedule_id
      WHERE a.resolved_at > statement_timestamp() - interval '1 day' GROUP BY 1`,
    `SELECT coalesce(s.team_id::text, '${EVERY_TEAM}'), 'd' || count(*) || '.' || sum(d.attempts) || '.' || max(d.next_attempt_at)
       FROM alert_deliveries d JOIN alerts a ON a.id = d.alert_id LEFT JOIN schedules s ON s.id = a.schedule_id
      WHERE d.state = 'pending' GROUP BY 1`,
  ],
};

/**
 * Per team, what `topics` show now (one statement, only the topics asked for): the change feed reads it when it names
 * a team topic, and tells each subscriber only of the teams whose text changed since it last named that topic. Read
 * after the change settled (the feed's running-transactions check), so it sees at least what the signatures saw.
 */
export async function readTeamSignatures(db: Queryable, topics: readonly TeamTopic[]): Promise<TeamSignatures> {
  const out: TeamSignatures = new Map();
  if (topics.length === 0) return out;
  const columns = topics.map(
    (t) => `(SELECT coalesce(jsonb_object_agg(k, v), '{}') FROM (
               SELECT k, string_agg(v, ';' ORDER BY v) AS v FROM (${TEAM_PARTS[t].join(" UNION ALL ")}) p(k, v) GROUP BY k) g) AS "${t}"`,
  );
  const { rows } = await db.query<Record<TeamTopic, Record<string, string>>>(`SELECT ${columns.join(",\n")}`);
  for (const t of topics) out.set(t, new Map(Object.entries(rows[0]![t])));
  return out;
}
