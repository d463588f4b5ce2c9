// Records how an attempt ended, in one transaction with everything that follows from it: the
// attempt row, the run's state (succeeded, hollow, failed, timed_out, cancelled, or retrying with
// the next attempt's job), the stage events not yet written, the pg-boss job's completion, and the
// wake-up of runs waiting for the slot this attempt held.
import type { PgBoss } from "pg-boss";
import type { Queryable } from "../db/pool";
import { RUN_QUEUE } from "../queue/boss";
import type { ParsedHandlerResult } from "../handlers/handler-result";
import { recordRunEvent } from "./record-run-event";
import { recordStageEvents, type StageEvent } from "./record-stage-events";
import { lockRunScope } from "./lock-run-scope";
import { hasAttemptsLeft, scheduleRetry } from "./retry-run";
import { wakeWaitingRuns } from "./wake-waiting-runs";

export type AttemptOutcome =
  | { kind: "succeeded"; result: ParsedHandlerResult }
  /** permanent: retrying cannot help (unknown handler, invalid payload). */
  | { kind: "failed"; error: string; permanent?: boolean }
  | { kind: "timed_out"; error: string }
  | { kind: "cancelled"; error: string }
  /** The worker stopped the attempt (drain, lost database): retried like a failure. */
  | { kind: "interrupted"; error: string };

export interface FinishRequest {
  runId: string;
  attempt: number;
  workerId: string;
  jobId: string | null;
  outcome: AttemptOutcome;
  durationMs: number;
  /**
   * How long ago (monotonic ms) the attempt actually ended: the handler returned, or its thread and
   * sessions were terminated. finished_at is the database clock minus this, so a slow or retried
   * bookkeeping transaction does not make the run look like it ended later than it did.
   */
  endedAgoMs?: number;
  /** Stage events that could not be written when they happened (stamped by their age). */
  pendingEvents?: StageEvent[];
}

export interface FinishResult {
  /** The run's state after this transaction, or null when the attempt was no longer ours. */
  state: string | null;
  nextAttemptAt?: Date;
  woken: string[];
}

export async function finishRun(tx: Queryable, boss: PgBoss, req: FinishRequest): Promise<FinishResult> {
  if (req.pendingEvents?.length) await recordStageEvents(tx, req.runId, req.pendingEvents);
  const scope = await lockRunScope(tx, req.runId);
  if (!scope) return { state: null, woken: [] };
  const { run, schedule } = scope;
  const durationMs = Math.max(0, Math.round(req.durationMs));

  if (run.state !== "running" || run.attempt !== req.attempt || run.workerId !== req.workerId) {
    // The reaper or a direct cancel took this attempt away (e.g. our heartbeats stopped reaching the
    // database); its outcome was already recorded, and a retry may be running. Keep ours as a note.
    await recordRunEvent(tx, {
      runId: req.runId,
      type: "result_discarded",
      attempt: req.attempt,
      workerId: req.workerId,
      message: `attempt ${req.attempt} ended ${req.outcome.kind} after the run had moved on (now ${run.state}, attempt ${run.attempt})`,
      data: { outcome: req.outcome.kind, durationMs },
    });
    if (req.jobId) await settleJob(tx, boss, req.jobId, "complete");
    return { state: run.state, woken: [] };
  }

  const o = req.outcome;
  const records = o.kind === "succeeded" ? (o.result.records ?? null) : null;
  const error = o.kind === "succeeded" ? null : o.error;
  let attemptState: string = o.kind === "interrupted" ? "failed" : o.kind;
  let runState: string;
  if (o.kind === "succeeded") {
    const hollow = schedule.expectRecordsMin !== null && (records ?? 0) < schedule.expectRecordsMin;
    runState = hollow ? "hollow" : "succeeded";
    attemptState = runState;
  } else if (o.kind === "cancelled") {
    runState = "cancelled";
  } else if (o.kind === "failed" && o.permanent) {
    runState = "failed";
  } else {
    runState = hasAttemptsLeft(run) ? "retrying" : o.kind === "timed_out" ? "timed_out" : "failed";
  }

  await tx.query(
    `UPDATE attempts SET state = $3, finished_at = greatest(started_at, clock_timestamp() - make_interval(secs => $7::float8 / 1000.0)),
            duration_ms = $4, records = $5, error = $6
      WHERE run_id = $1 AND number = $2`,
    [run.id, run.attempt, attemptState, durationMs, records, error, Math.max(0, req.endedAgoMs ?? 0)],
  );
  const result = o.kind === "succeeded" ? JSON.stringify(o.result) : null;
  await tx.query(
    `UPDATE runs SET state = CASE WHEN $2 = 'retrying' THEN state ELSE $2 END,
            finished_at = CASE WHEN $2 = 'retrying' THEN NULL
                               ELSE (SELECT a.finished_at FROM attempts a WHERE a.run_id = $1 AND a.number = runs.attempt) END,
            duration_ms = $3, records = $4, result = coalesce($5::jsonb, result), error = $6, updated_at = clock_timestamp()
      WHERE id = $1`,
    [run.id, runState, durationMs, records, result, error],
  );

  let nextAttemptAt: Date | undefined;
  if (runState === "retrying") {
    ({ nextAttemptAt } = await scheduleRetry(tx, boss, run, { baseSeconds: schedule.retryBaseSeconds, maxSeconds: schedule.retryMaxSeconds }, {
      workerId: req.workerId,
      reason: `attempt ${run.attempt} ${o.kind === "interrupted" ? "was interrupted" : o.kind.replace("_", " ")}`,
    }));
  } else {
    await recordRunEvent(tx, {
      runId: run.id,
      type: runState === "cancelled" ? "cancelled" : "finished",
      attempt: run.attempt,
      workerId: req.workerId,
      message: finishMessage(runState, records, schedule.expectRecordsMin, error, durationMs),
      data: { state: runState, records, durationMs, ...(error ? { error } : {}) },
    });
  }

  if (req.jobId) await settleJob(tx, boss, req.jobId, o.kind === "succeeded" || o.kind === "cancelled" ? "complete" : "fail", error);
  const woken = await wakeWaitingRuns(tx, boss, { scheduleId: schedule.id, group: scope.group });
  return { state: runState, nextAttemptAt, woken };
}

function finishMessage(state: string, records: number | null, expectMin: number | null, error: string | null, durationMs: number): string {
  if (state === "hollow") return `succeeded with ${records ?? 0} record(s), fewer than the ${expectMin} expected: hollow`;
  if (state === "succeeded") return `succeeded in ${durationMs} ms${records !== null ? ` with ${records} record(s)` : ""}`;
  return `${state.replace("_", " ")} after ${durationMs} ms${error ? `: ${error}` : ""}`;
}

async function settleJob(tx: Queryable, boss: PgBoss, jobId: string, how: "complete" | "fail", error?: string | null): Promise<void> {
  const db = { executeSql: (text: string, values?: unknown[]) => tx.query(text, values as unknown[]) };
  if (how === "complete") await boss.complete(RUN_QUEUE, jobId, null, { db });
  else await boss.fail(RUN_QUEUE, jobId, { error: error ?? "failed" }, { db });
}
