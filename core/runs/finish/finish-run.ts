// Records how attempts ended, in one transaction with everything that follows from it: the attempt
// rows, the runs' states (succeeded, hollow, failed, timed_out, cancelled, or retrying with the next
// attempt's job), the stage events not yet written, and the wake-up of runs waiting for the slots
// these attempts held. A batch of outcomes costs a handful of round trips whatever its size.
// The attempts' pg-boss jobs are settled by the caller after commit (FinishResult.settle).
// Most outcomes are successes that nothing else depends on: finish-free-runs.ts records those in one
// round trip, and finishRuns (full locks, retries, wake-ups) takes the rest.
import type { PgBoss } from "pg-boss";
import type { Queryable } from "../../db/pool";
import type { ParsedHandlerResult } from "../../handlers/handler-result";
import { stageEventAtSql, type StageEvent } from "../record-stage-events";
import { lockRunBatch, type LockedRun, type LockedSchedule } from "../locks/lock-run-scope";
import { hasAttemptsLeft, scheduleRetry } from "./retry-run";
import { wakeWaitingRuns } from "../locks/wake-waiting-runs";

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
  /** The run's state after this transaction, or null when it does not exist. */
  state: string | null;
  /** False when the attempt was no longer this worker's (reaped or cancelled meanwhile): discarded. */
  recorded: boolean;
  nextAttemptAt?: Date;
  /** How the attempt's job should be settled now that the outcome is committed. */
  settle: { jobId: string; how: "complete" | "fail"; error?: string } | null;
}

export async function finishRun(tx: Queryable, boss: PgBoss, req: FinishRequest): Promise<FinishResult> {
  return (await finishRuns(tx, boss, [req]))[0]!;
}

interface Decided {
  req: FinishRequest;
  run: LockedRun;
  schedule: LockedSchedule;
  attemptState: string;
  runState: string;
  records: number | null;
  error: string | null;
  durationMs: number;
}

/** When attempt a really ended: the database's now (t.now) minus how long ago it ended, never before it started. */
export const attemptFinishedAtSql = (endedAgoMs: string) =>
  `greatest(a.started_at, t.now - make_interval(secs => greatest(${endedAgoMs}, 0) / 1000.0))`;

/**
 * The writes of a plain success, as CTEs over `c` (the runs to finish: id, attempt, worker_id, ended_ago_ms,
 * duration_ms, records, result, message, data) and `t` (now): the attempt, the run and its 'finished' event.
 * `ur` returns the run's columns its read-model deltas need (read-model-deltas.ts successDeltasSql).
 * Used by the one-round-trip vigil_finish_free_runs (finish-free-runs.ts).
 */
export const succeededWritesSql = () => `ua AS (
       UPDATE attempts a SET state = 'succeeded',
              finished_at = ${attemptFinishedAtSql("c.ended_ago_ms")},
              duration_ms = c.duration_ms, records = c.records, error = NULL
         FROM c, t
        WHERE a.run_id = c.id AND a.number = c.attempt
        RETURNING a.run_id, a.finished_at
     ),
     ur AS (
       UPDATE runs r SET state = 'succeeded', finished_at = ua.finished_at, duration_ms = c.duration_ms, records = c.records,
              result = coalesce(c.result, r.result), error = NULL, updated_at = t.now
         FROM c JOIN ua ON ua.run_id = c.id, t
        WHERE r.id = c.id
        RETURNING r.id, r.schedule_id, r.state, r.planned_at, r.kind, r.reruns, r.attempt, r.lateness_ms, r.finished_at, r.duration_ms
     ),
     e AS (
       INSERT INTO run_events (run_id, type, attempt, worker_id, message, data, at)
       SELECT c.id, 'finished', c.attempt, c.worker_id, c.message, c.data,
              ${stageEventAtSql({ runId: "c.id", workerId: "c.worker_id", attempt: "c.attempt", now: "t.now", ageMs: "0::float8" })}
         FROM c JOIN ur ON ur.id = c.id, t
     )`;

/** Records a batch of outcomes under the full locks (schedule → group → run); results in request order. */
export async function finishRuns(tx: Queryable, boss: PgBoss, reqs: FinishRequest[]): Promise<FinishResult[]> {
  if (reqs.length === 0) return [];
  const scope = await lockRunBatch(tx, [...new Set(reqs.map((r) => r.runId))]);
  const results: FinishResult[] = [];
  const decided: Decided[] = [];
  const events: {
    runId: string;
    type: string;
    attempt: number;
    workerId: string;
    message: string;
    data: Record<string, unknown>;
    ageMs: number;
  }[] = [];
  const nowPerf = performance.now();
  for (const req of reqs) {
    for (const e of req.pendingEvents ?? []) {
      events.push({
        runId: req.runId,
        type: e.type,
        attempt: e.attempt,
        workerId: e.workerId,
        message: e.message ?? "",
        data: e.data ?? {},
        ageMs: nowPerf - e.atPerf,
      });
    }
  }

  for (const req of reqs) {
    const run = scope.runs.get(req.runId);
    const durationMs = Math.max(0, Math.round(req.durationMs));
    if (!run) {
      results.push({ state: null, recorded: false, settle: req.jobId ? { jobId: req.jobId, how: "complete" } : null });
      continue;
    }
    if (run.state !== "running" || run.attempt !== req.attempt || run.workerId !== req.workerId) {
      // The reaper or a direct cancel took this attempt away (e.g. our heartbeats stopped reaching the
      // database); its outcome was already recorded, and a retry may be running. Keep ours as a note.
      events.push({
        runId: run.id,
        type: "result_discarded",
        attempt: req.attempt,
        workerId: req.workerId,
        message: `attempt ${req.attempt} ended ${req.outcome.kind} after the run had moved on (now ${run.state}, attempt ${run.attempt})`,
        data: { outcome: req.outcome.kind, durationMs },
        ageMs: 0,
      });
      results.push({ state: run.state, recorded: false, settle: req.jobId ? { jobId: req.jobId, how: "complete" } : null });
      continue;
    }
    const schedule = scope.schedules.get(run.scheduleId)!;
    const o = req.outcome;
    const records = o.kind === "succeeded" ? (o.result.records ?? null) : null;
    const error = o.kind === "succeeded" ? null : o.error;
    let attemptState: string = o.kind === "interrupted" ? "failed" : o.kind;
    let runState: string;
    if (o.kind === "succeeded") {
      runState = schedule.expectRecordsMin !== null && (records ?? 0) < schedule.expectRecordsMin ? "hollow" : "succeeded";
      attemptState = runState;
    } else if (o.kind === "cancelled" || (o.kind === "failed" && o.permanent)) {
      runState = o.kind;
    } else {
      runState = hasAttemptsLeft(run) ? "retrying" : o.kind === "timed_out" ? "timed_out" : "failed";
    }
    run.state = runState;
    decided.push({ req, run, schedule, attemptState, runState, records, error, durationMs });
    if (runState !== "retrying") {
      events.push({
        runId: run.id,
        type: runState === "cancelled" ? "cancelled" : "finished",
        attempt: run.attempt,
        workerId: req.workerId,
        message: finishMessage(runState, records, schedule.expectRecordsMin, error, durationMs),
        data: { state: runState, records, durationMs, ...(error ? { error } : {}) },
        ageMs: 0,
      });
    }
    const ok = o.kind === "succeeded" || o.kind === "cancelled";
    results.push({
      state: runState,
      recorded: true,
      settle: req.jobId ? { jobId: req.jobId, how: ok ? "complete" : "fail", ...(error ? { error } : {}) } : null,
    });
  }

  await applyOutcomes(tx, decided, events);

  for (const d of decided) {
    if (d.runState !== "retrying") continue;
    const o = d.req.outcome;
    const { nextAttemptAt } = await scheduleRetry(
      tx,
      boss,
      d.run,
      { baseSeconds: d.schedule.retryBaseSeconds, maxSeconds: d.schedule.retryMaxSeconds },
      {
        workerId: d.req.workerId,
        reason: `attempt ${d.run.attempt} ${o.kind === "interrupted" ? "was interrupted" : o.kind.replace("_", " ")}`,
      },
    );
    results[reqs.indexOf(d.req)]!.nextAttemptAt = nextAttemptAt;
  }

  // Slots freed: wake who waits for them (nobody can under 'allow' without a group: skip the queries).
  const woken = new Set<string>();
  for (const d of decided) {
    const group = d.run.concurrencyGroup ? (scope.groups.get(d.run.concurrencyGroup) ?? null) : null;
    const overlap = d.schedule.overlapPolicy !== "allow";
    const key = `${d.schedule.id}|${group?.name ?? ""}`;
    if ((!group && !overlap) || woken.has(key)) continue;
    woken.add(key);
    await wakeWaitingRuns(tx, boss, { scheduleId: d.schedule.id, group, overlap });
  }
  return results;
}

/** One statement: the attempts' and runs' outcomes and every event of the batch. */
async function applyOutcomes(
  tx: Queryable,
  decided: Decided[],
  events: {
    runId: string;
    type: string;
    attempt: number;
    workerId: string;
    message: string;
    data: Record<string, unknown>;
    ageMs: number;
  }[],
): Promise<void> {
  if (decided.length === 0 && events.length === 0) return;
  await tx.query(
    `WITH t AS (SELECT clock_timestamp() AS now),
     f AS (SELECT * FROM unnest($1::uuid[], $2::int[], $3::text[], $4::text[], $5::int[], $6::int[], $7::text[], $8::jsonb[], $9::float8[])
                  AS f(id, attempt, attempt_state, run_state, duration_ms, records, error, result, ended_ago_ms)),
     ua AS (
       UPDATE attempts a SET state = f.attempt_state,
              finished_at = ${attemptFinishedAtSql("f.ended_ago_ms")},
              duration_ms = f.duration_ms, records = f.records, error = f.error
         FROM f, t
        WHERE a.run_id = f.id AND a.number = f.attempt
        RETURNING a.run_id, a.finished_at
     ),
     ur AS (
       UPDATE runs r SET state = CASE WHEN f.run_state = 'retrying' THEN r.state ELSE f.run_state END,
              finished_at = CASE WHEN f.run_state = 'retrying' THEN NULL ELSE (SELECT ua.finished_at FROM ua WHERE ua.run_id = r.id) END,
              duration_ms = f.duration_ms, records = f.records, result = coalesce(f.result, r.result), error = f.error,
              updated_at = t.now
         FROM f, t
        WHERE r.id = f.id
        RETURNING r.id
     ),
     e AS (
       INSERT INTO run_events (run_id, type, attempt, worker_id, message, data, at)
       SELECT x.run_id, x.type, x.attempt, x.worker_id, x.message, x.data,
              ${stageEventAtSql({ runId: "x.run_id", workerId: "x.worker_id", attempt: "x.attempt", now: "t.now", ageMs: "x.age_ms" })}
         FROM unnest($10::uuid[], $11::text[], $12::int[], $13::text[], $14::text[], $15::jsonb[], $16::float8[])
              AS x(run_id, type, attempt, worker_id, message, data, age_ms), t
     )
     SELECT count(*) FROM ur`,
    [
      decided.map((d) => d.run.id),
      decided.map((d) => d.run.attempt),
      decided.map((d) => d.attemptState),
      decided.map((d) => d.runState),
      decided.map((d) => d.durationMs),
      decided.map((d) => d.records),
      decided.map((d) => d.error),
      decided.map((d) => (d.req.outcome.kind === "succeeded" ? JSON.stringify(d.req.outcome.result) : null)),
      decided.map((d) => Math.max(0, d.req.endedAgoMs ?? 0)),
      events.map((e) => e.runId),
      events.map((e) => e.type),
      events.map((e) => e.attempt),
      events.map((e) => e.workerId),
      events.map((e) => e.message),
      events.map((e) => JSON.stringify(e.data)),
      events.map((e) => e.ageMs),
    ],
  );
}

export function finishMessage(
  state: string,
  records: number | null,
  expectMin: number | null,
  error: string | null,
  durationMs: number,
): string {
  if (state === "hollow") return `succeeded with ${records ?? 0} record(s), fewer than the ${expectMin} expected: hollow`;
  if (state === "succeeded") return `succeeded in ${durationMs} ms${records !== null ? ` with ${records} record(s)` : ""}`;
  return `${state.replace("_", " ")} after ${durationMs} ms${error ? `: ${error}` : ""}`;
}
