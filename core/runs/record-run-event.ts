// The append-only trace of one run. Every stage (planned, enqueued, started, cancel requested,
// killed, finished…) is one row stamped with the database clock.
import type { Queryable } from "../db/pool";

export type RunEventType =
  | "planned"
  | "enqueued"
  | "deduplicated"
  | "duplicate_delivery_suppressed"
  | "waiting"
  | "woken"
  | "started"
  | "heartbeat_gap"
  | "retry_scheduled"
  | "timed_out"
  | "abort_sent"
  | "sigterm_sent"
  | "sigkill_sent"
  | "terminated"
  | "cancel_requested"
  | "cancel_acknowledged"
  | "killed"
  | "sessions_terminated"
  | "cancelled"
  | "zombie_detected"
  | "skipped_overlap"
  | "missed"
  | "paused"
  | "excluded"
  | "replanned"
  | "finished"
  | "result_discarded"
  | "rerun_requested";

export interface RunEventInput {
  runId: string;
  type: RunEventType;
  attempt?: number | null;
  workerId?: string | null;
  message?: string;
  data?: Record<string, unknown> | null;
}

export async function recordRunEvent(db: Queryable, e: RunEventInput): Promise<void> {
  await db.query(`INSERT INTO run_events (run_id, type, attempt, worker_id, message, data) VALUES ($1, $2, $3, $4, $5, $6)`, [
    e.runId,
    e.type,
    e.attempt ?? null,
    e.workerId ?? null,
    e.message ?? "",
    e.data ? JSON.stringify(e.data) : null,
  ]);
}

/** One INSERT for many events (planner and backfill write thousands at once). */
export async function recordRunEvents(db: Queryable, events: RunEventInput[]): Promise<void> {
  if (events.length === 0) return;
  await db.query(
    `INSERT INTO run_events (run_id, type, attempt, worker_id, message, data)
     SELECT * FROM unnest($1::uuid[], $2::text[], $3::int[], $4::text[], $5::text[], $6::jsonb[])`,
    [
      events.map((e) => e.runId),
      events.map((e) => e.type),
      events.map((e) => e.attempt ?? null),
      events.map((e) => e.workerId ?? null),
      events.map((e) => e.message ?? ""),
      events.map((e) => (e.data ? JSON.stringify(e.data) : null)),
    ],
  );
}
