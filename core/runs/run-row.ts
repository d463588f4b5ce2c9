// A `runs` row as pg returns it (snake_case, timestamps as Date): the one row type the readers of runs build on
// (Pick or extend it with the columns a statement adds), so the table's shape is written down once.
import type { RunKind, RunState } from "./run-states";

export interface RunRow {
  id: string;
  schedule_id: string;
  kind: RunKind;
  planned_at: Date;
  due_at: Date;
  idempotency_key: string;
  state: RunState;
  wait_reason: string | null;
  handler: string;
  payload: unknown;
  timeout_seconds: number;
  grace_seconds: number;
  max_attempts: number;
  concurrency_group: string | null;
  attempt: number;
  wakes: number;
  worker_id: string | null;
  enqueued_at: Date | null;
  started_at: Date | null;
  heartbeat_at: Date | null;
  finished_at: Date | null;
  next_attempt_at: Date | null;
  lateness_ms: number | null;
  duration_ms: number | null;
  records: number | null;
  result: unknown;
  error: string | null;
  cancel_requested_at: Date | null;
  cancel_requested_by: string | null;
  cancel_reason: string | null;
  reruns: number;
  created_at: Date;
  updated_at: Date;
}
