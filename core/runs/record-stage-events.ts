// Stage events (abort sent, terminated, sessions terminated…) happen in the worker; their time must
// still be the database's. Each carries its age on the worker's monotonic clock when written, and is
// stamped clock_timestamp() minus that age, so an event written late (queued behind a slow
// transaction, or retried after a dropped connection) still shows when the stage happened.
import type { Queryable } from "../db/pool";
import type { RunEventType } from "./record-run-event";

/**
 * SQL for a stage event's time: the database's now minus the event's age — but never before an event the same
 * worker already wrote for the same attempt. Two writes each carry their own network delay, so stages a
 * millisecond apart could otherwise swap; the worker writes its stages in the order they happened.
 */
export function stageEventAtSql(e: { runId: string; workerId: string; attempt: string; now: string; ageMs: string }): string {
  return `greatest(${e.now} - make_interval(secs => greatest(${e.ageMs}, 0) / 1000.0),
                   (SELECT max(prev.at) FROM run_events prev
                     WHERE prev.run_id = ${e.runId} AND prev.worker_id = ${e.workerId} AND prev.attempt = ${e.attempt}))`;
}

export interface StageEvent {
  type: RunEventType;
  attempt: number;
  workerId: string;
  message?: string;
  data?: Record<string, unknown>;
  /** performance.now() when the stage happened, in the writing process. */
  atPerf: number;
}

export async function recordStageEvents(db: Queryable, runId: string, events: StageEvent[], nowPerf = performance.now()): Promise<void> {
  if (events.length === 0) return;
  await db.query(
    `INSERT INTO run_events (run_id, type, attempt, worker_id, message, data, at)
     SELECT $1, t.type, t.attempt, t.worker_id, t.message, t.data,
            ${stageEventAtSql({ runId: "$1::uuid", workerId: "t.worker_id", attempt: "t.attempt", now: "clock_timestamp()", ageMs: "t.age_ms" })}
       FROM unnest($2::text[], $3::int[], $4::text[], $5::text[], $6::jsonb[], $7::float8[])
            AS t(type, attempt, worker_id, message, data, age_ms)`,
    [
      runId,
      events.map((e) => e.type),
      events.map((e) => e.attempt),
      events.map((e) => e.workerId),
      events.map((e) => e.message ?? ""),
      events.map((e) => (e.data ? JSON.stringify(e.data) : null)),
      events.map((e) => nowPerf - e.atPerf),
    ],
  );
}
