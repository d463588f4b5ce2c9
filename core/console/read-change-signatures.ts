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

export async function readChangeSignatures(db: Queryable, deadAfterMs: number): Promise<ChangeSignatures> {
  const { rows } = await db.query<{ runs: string; attention: string; alerts: string; workers: string; live: number }>(
    // runs: the sequence the triggers of 20261202700000_console_read_models bump (no row lock, no table read), and
    // the next pause or maintenance window to end by the clock. attention: the header window's oldest entries
    // (clock-boundaries.ts: a few index probes).
    // alerts: open alerts are few (index on resolved_at, opened_at); the newest resolution covers the closed ones;
    // webhook deliveries by the newest one and the pending ones (index on state): a delivery that ends leaves those.
    // workers: one row per worker process; the heartbeat itself is left out, only whether it is live.
    `SELECT (SELECT last_value::text || is_called::text FROM vigil_console_version) || '/' || ${CLOCK_SQL.pauses} AS runs,
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
              WHERE stopped_at IS NULL AND state <> 'stopped' AND heartbeat_at > clock_timestamp() - make_interval(secs => $1 / 1000.0)) AS live`,
    [deadAfterMs],
  );
  const r = rows[0]!;
  return {
    runs: r.runs,
    attention: r.attention,
    alerts: r.alerts,
    workers: r.workers,
    health: `db up, worker ${r.live > 0 ? "up" : "down"}`,
  };
}
