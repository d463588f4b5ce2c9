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
  /** The oldest transaction still in progress when the read's statement started (its snapshot's xmin). */
  oldestRunning: bigint;
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
    xmin: string;
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
            pg_snapshot_xmin(pg_current_snapshot())::text AS xmin`,
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
    oldestRunning: BigInt(r.xmin),
  };
}

/**
 * A transaction id newer than every one assigned so far (one is assigned to this statement for it: a sequence bump
 * the caller's read saw was made by an older one). Once no transaction older than it is in progress (a later read's
 * oldestRunning has reached it), whatever the read saw is committed (or rolled back) and visible to every new
 * snapshot: the change feed's "settled" (console-change-feed.ts). `settled`: nothing older was in progress already.
 */
export async function readSettlePoint(db: Queryable): Promise<{ xid: bigint; settled: boolean }> {
  const { rows } = await db.query<{ xid: string; xmin: string }>(
    `SELECT pg_current_xact_id()::text AS xid, pg_snapshot_xmin(pg_current_snapshot())::text AS xmin`,
  );
  const xid = BigInt(rows[0]!.xid);
  // The statement's snapshot was taken before the id was assigned: its xmin is the id only if nothing was running.
  return { xid, settled: BigInt(rows[0]!.xmin) >= xid };
}
