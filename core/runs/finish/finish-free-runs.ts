// The default path's outcomes in one round trip: a successful attempt of any run — 'skip' and other
// exclusive schedules, runs in concurrency groups — is recorded here when nothing follows from it: no run waits
// for the slot it frees. In the SQL function vigil_finish_free_runs (locks/under-run-locks.ts), which first locks
// the runs' exclusive schedules and their groups in the engine's order and waits for them, the statement below
// sees with a fresh snapshot every wait a claim recorded under those locks: a run waiting for this schedule's overlap or this
// group's slot sends the outcome to finishRuns (finish-run.ts), which records it and wakes the waiter in one
// transaction. So a claim deciding to wait and a finish freeing the slot cannot miss each other, as before.
// Also left to finishRuns: failures, timeouts, cancels (retries, events), hollow results, pending stage events,
// attempts no longer this worker's, and runs another transaction holds.
// The read models' changes of these successes are appended by the statement itself (read-model-deltas.ts), not by
// the runs UPDATE triggers.
import type { Queryable } from "../../db/pool";
import type { ParsedHandlerResult } from "../../handlers/handler-result";
import { underRunLocksSql } from "../locks/under-run-locks";
import { CONSOLE_VERSION_BUMP_SQL, HOT_DELTAS_SETTING, SUCCESS_DELTAS_SQL } from "../read-model-deltas";
import { finishMessage, succeededWritesSql, type FinishRequest, type FinishResult } from "./finish-run";

const FINISH_FREE_RUNS_SQL = `WITH t AS (SELECT clock_timestamp() AS now),
     f AS (SELECT * FROM jsonb_to_recordset(p_args->'reqs')
                  AS f(id uuid, attempt int, worker_id text, duration_ms int, records int, result jsonb, ended_ago_ms float8, message text, data jsonb)),
     c AS (
       SELECT f.*
         FROM f, LATERAL (SELECT * FROM runs WHERE runs.id = f.id OFFSET 0 FOR NO KEY UPDATE SKIP LOCKED) r
         JOIN schedules s ON s.id = r.schedule_id
        WHERE r.state = 'running' AND r.attempt = f.attempt AND r.worker_id = f.worker_id
          AND (s.expect_records_min IS NULL OR coalesce(f.records, 0) >= s.expect_records_min)
          AND (s.overlap_policy = 'allow'
               OR NOT EXISTS (SELECT 1 FROM runs w WHERE w.schedule_id = r.schedule_id AND w.state = 'queued' AND w.wait_reason = 'overlap'))
          AND (r.concurrency_group IS NULL
               OR NOT EXISTS (SELECT 1 FROM runs w
                               WHERE w.concurrency_group = r.concurrency_group AND w.state = 'queued' AND w.wait_reason = 'concurrency'))
     ),
     ${succeededWritesSql()},
     ${SUCCESS_DELTAS_SQL}
     SELECT jsonb_build_object('id', ur.id) FROM ur`;

/** The body of vigil_finish_free_runs (its newest migration: 20261210100000; claim-free-runs.db.test.ts keeps them equal). */
export const FINISH_FREE_RUNS_FUNCTION_BODY = underRunLocksSql(FINISH_FREE_RUNS_SQL, CONSOLE_VERSION_BUMP_SQL, HOT_DELTAS_SETTING);

/**
 * Records, in one statement (its own transaction), the successes nothing else depends on; returns, in request
 * order, the outcomes recorded and undefined for everything left to finishRuns.
 */
export async function finishFreeRuns(db: Queryable, reqs: FinishRequest[]): Promise<(FinishResult | undefined)[]> {
  const call = freeFinishCall(reqs);
  if (!call) return new Array(reqs.length).fill(undefined);
  const { rows } = await db.query<{ r: { id: string } }>({
    name: "vigil-finish-free-runs",
    text: `SELECT r FROM vigil_finish_free_runs($1::uuid[], $2::jsonb) AS r`,
    values: [call.runIds, JSON.stringify(call.args)],
  });
  return freeFinishResults(reqs, new Set(rows.map(({ r }) => r.id)));
}

/**
 * The arguments of vigil_finish_free_runs for the outcomes it may record (successes without pending stage events, one
 * per run, in id order: the order their rows are locked); null when there are none.
 */
export function freeFinishCall(reqs: readonly FinishRequest[]): { runIds: string[]; args: { reqs: object[] } } | null {
  const seen = new Set<string>();
  const idx: number[] = [];
  reqs.forEach((r, i) => {
    if (!mayFinishFree(r) || seen.has(r.runId)) return;
    seen.add(r.runId);
    idx.push(i);
  });
  if (idx.length === 0) return null;
  idx.sort((a, b) => (reqs[a]!.runId < reqs[b]!.runId ? -1 : 1)); // rows locked in id order
  const args = {
    reqs: idx.map((i) => {
      const r = reqs[i]!;
      const result = (r.outcome as { result: ParsedHandlerResult }).result;
      const records = result.records ?? null;
      const durationMs = Math.max(0, Math.round(r.durationMs));
      return {
        id: r.runId,
        attempt: r.attempt,
        worker_id: r.workerId,
        duration_ms: durationMs,
        records,
        result,
        ended_ago_ms: Math.max(0, r.endedAgoMs ?? 0),
        message: finishMessage("succeeded", records, null, null, durationMs),
        data: { state: "succeeded", records, durationMs },
      };
    }),
  };
  return { runIds: idx.map((i) => reqs[i]!.runId), args };
}

/** Whether an outcome is of the kind the one-statement path may record (it still decides whether it does). */
export function mayFinishFree(r: FinishRequest): boolean {
  return r.outcome.kind === "succeeded" && (r.pendingEvents?.length ?? 0) === 0;
}

/** In request order: the outcome of each request whose run `recorded` holds, undefined for the rest. */
export function freeFinishResults(reqs: readonly FinishRequest[], recorded: ReadonlySet<string>): (FinishResult | undefined)[] {
  const out: (FinishResult | undefined)[] = new Array(reqs.length).fill(undefined);
  const seen = new Set<string>();
  reqs.forEach((r, i) => {
    if (!mayFinishFree(r) || seen.has(r.runId)) return;
    seen.add(r.runId);
    if (recorded.has(r.runId))
      out[i] = { state: "succeeded", recorded: true, settle: r.jobId ? { jobId: r.jobId, how: "complete" } : null };
  });
  return out;
}
