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
  // Through vigil_terminate_run_sessions: the sessions belong to the worker's database role, which the console
  // (cancelling a run) may not signal itself (core/db/grants.ts).
  const { rows } = await db.query<{ n: number }>(`SELECT vigil_terminate_run_sessions($1, $2::bigint) AS n`, [
    runSessionTag(runId),
    waitMs,
  ]);
  return rows[0]?.n ?? 0;
}
