// "Commit now, wait for the disk after the others were told": the latency of one run. A statement whose
// commit wakes another process (a NOTIFY, delivered at commit) may commit without waiting for the WAL flush
// (synchronous_commit = off, set for its own transaction) and then call flushWal before it answers its caller:
// the listener starts at once instead of one disk flush later, and the caller still hears back only once the
// commit is on disk. What the woken process does is as safe as before: anything it commits with a synchronous
// commit flushes the WAL up to its own commit record, so the earlier commit it acted on is durable first (WAL is
// flushed in order) — a crash can lose the async commit only together with everything done after it.
import type { Queryable } from "./pool";

/** SQL for a select list: makes the statement's own transaction commit without waiting for the WAL flush. */
export const ASYNC_COMMIT_SQL = `set_config('synchronous_commit', 'off', true)`;

// pg_logical_emit_message(…, flush => true) (PostgreSQL 17+, any wal_level, executable by every role) writes one
// small WAL record and flushes the WAL up to it — everything committed before it included — with no transaction and
// no row written. (A transaction that only takes an xid does not flush at its commit: it wrote no WAL.)
const FLUSH_SQL = `SELECT pg_logical_emit_message(false, 'vigil.flush', '', true)`;
// It flushes locally only: with synchronous standbys, whose acknowledgement a synchronous commit also waits for,
// commits stay synchronous.
const PROBE_SQL = `SELECT to_regprocedure('pg_logical_emit_message(boolean,text,text,boolean)') IS NOT NULL
                          AND has_function_privilege('pg_logical_emit_message(boolean,text,text,boolean)', 'EXECUTE')
                          AND current_setting('synchronous_standby_names') = ''
                          AND current_setting('synchronous_commit') <> 'off' AS ok`;

let supported: Promise<boolean> | undefined;

/**
 * Whether commits may go asynchronous and be made durable by flushWal. Asked once per process; a server that cannot
 * (PostgreSQL before 17, synchronous standbys, or synchronous_commit already off) keeps its commits as they are.
 */
export function canFlushWal(db: Queryable): Promise<boolean> {
  supported ??= db.query<{ ok: boolean }>(PROBE_SQL).then(
    (r) => r.rows[0]?.ok === true,
    (err: unknown) => {
      supported = undefined; // a failed probe (connection lost) is asked again next time
      throw err;
    },
  );
  return supported;
}

/** Waits until every commit made before this call is on this server's disk. */
export async function flushWal(db: Queryable): Promise<void> {
  await db.query({ name: "vigil-flush-wal", text: FLUSH_SQL });
}
