// One cheap read that says, per change topic, "what the console shows now" as a short text: two reads in a row
// with the same text for a topic mean nothing of that topic changed in between. The change feed
// (console-change-feed.ts) runs it once a second per console process, however many tabs are open.
//
// Why a poll of counters and not a NOTIFY from the triggers: a NOTIFY per run transition would add work to every
// finishing run (and the queue lock taken at commit serialises the committing transactions that notified), while
// this read costs the same whether one run or a thousand finished in the second. It adds no statement to a run.
import type { Queryable } from "../db/pool";
import type { ChangeTopic } from "./change-topics";
import { CLOCK_SQL } from "./clock-boundaries";

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
// never bumps these sequences. Sessions of other roles show no backend_xid without pg_read_all_stats (the console
// and the workers normally share one role).
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
