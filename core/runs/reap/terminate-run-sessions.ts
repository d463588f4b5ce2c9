// Ends every Postgres session an attempt opened (they carry application_name vigil-run-<id>):
// a killed thread's sockets close, but a statement it started keeps running server-side until
// it next talks to the client, and it may hold locks a retry needs.
import type { Queryable } from "../../db/pool";
import { runSessionTag } from "../../handlers/run-session-tag";

/**
 * Returns how many sessions were signalled. waitMs > 0 waits (per session) until each is gone;
 * use 0 inside a transaction that holds locks those sessions may be waiting on.
 */
export async function terminateRunSessions(db: Queryable, runId: string, waitMs = 0): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*) FILTER (WHERE pg_terminate_backend(pid, $2::bigint))::int AS n
       FROM pg_stat_activity
      WHERE application_name = $1 AND pid <> pg_backend_pid()`,
    [runSessionTag(runId), waitMs],
  );
  return rows[0]?.n ?? 0;
}
