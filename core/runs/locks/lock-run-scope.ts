// Every execution-side transaction that changes who may run (claim, finish, cancel, reaper) locks
// in one order: the schedule row, then the concurrency group row, then the run row. The schedule
// lock serialises overlap decisions with slot releases (a run deciding to wait and the run it waits
// for finishing cannot miss each other); the group lock is the cross-worker semaphore.
// Lock strengths are the weakest that do the job: FOR NO KEY UPDATE on the schedule (exclusive among
// us, but it does not block foreign-key checks of rows being inserted for it) and only a FOR KEY
// SHARE when its overlap policy is 'allow' (nobody ever waits for overlap, so claims and finishes
// of many runs of one schedule need not queue behind each other).
import type { Queryable } from "../../db/pool";
import { pausedSql } from "../paused";
import type { RunRow } from "../run-row";
import { startingDeadlinePassedSql } from "../starting-deadline";

export interface LockedSchedule {
  id: string;
  overlapPolicy: "skip" | "buffer_one" | "allow" | "cancel_running";
  startingDeadlineSeconds: number;
  paused: boolean;
  deleted: boolean;
  expectRecordsMin: number | null;
  retryBaseSeconds: number;
  retryMaxSeconds: number;
}

/** A group's start-rate limit as its locked row holds it; start-rate-limit.ts applies it. */
export interface StartRate {
  maxStarts: number;
  perSeconds: number;
  /** The group's last maxStarts stored start times, oldest first. */
  recentStarts: Date[];
}

export interface LockedGroup {
  name: string;
  maxRunning: number;
  /** The group's start-rate limit, if it has one (start-rate-limit.ts). */
  startRate?: StartRate | null;
}

export interface LockedRun {
  id: string;
  scheduleId: string;
  kind: string;
  state: string;
  waitReason: string | null;
  attempt: number;
  wakes: number;
  workerId: string | null;
  handler: string;
  payload: unknown;
  timeoutSeconds: number;
  graceSeconds: number;
  maxAttempts: number;
  concurrencyGroup: string | null;
  idempotencyKey: string;
  plannedAt: Date;
  dueAt: Date;
  cancelRequestedAt: Date | null;
  /** State of the attempts row of run.attempt (null before the first attempt). */
  currentAttemptState: string | null;
  /** Database time when the run row was locked. */
  now: Date;
  /** clock_timestamp() > due_at + schedule.starting_deadline_seconds (see starting-deadline.ts). */
  deadlinePassed: boolean;
  heartbeatAgeMs: number | null;
}

export interface RunScope {
  schedule: LockedSchedule;
  group: LockedGroup | null;
  run: LockedRun;
}

export interface BatchScope {
  schedules: Map<string, LockedSchedule>;
  groups: Map<string, LockedGroup>;
  /** The runs found (and locked); a missing id does not exist, or (skipLocked) is held by another. */
  runs: Map<string, LockedRun>;
}

/**
 * Locks schedule → group → run. Returns null when the run does not exist, or (skipLocked) when
 * another transaction holds the run.
 */
export async function lockRunScope(tx: Queryable, runId: string, opts: { skipLocked?: boolean } = {}): Promise<RunScope | null> {
  const b = await lockRunBatch(tx, [runId], opts);
  const run = b.runs.get(runId);
  if (!run) return null;
  return {
    run,
    schedule: b.schedules.get(run.scheduleId)!,
    group: run.concurrencyGroup ? (b.groups.get(run.concurrencyGroup) ?? null) : null,
  };
}

interface LockedScheduleRow {
  id: string;
  overlap_policy: LockedSchedule["overlapPolicy"];
  starting_deadline_seconds: number;
  expect_records_min: number | null;
  retry_base_seconds: number;
  retry_max_seconds: number;
  deleted: boolean;
  paused: boolean;
  run_groups: string[];
}

interface LockedRunRow extends Pick<
  RunRow,
  | "id"
  | "schedule_id"
  | "kind"
  | "state"
  | "wait_reason"
  | "attempt"
  | "wakes"
  | "worker_id"
  | "handler"
  | "payload"
  | "timeout_seconds"
  | "grace_seconds"
  | "max_attempts"
  | "concurrency_group"
  | "idempotency_key"
  | "planned_at"
  | "due_at"
  | "cancel_requested_at"
> {
  now: Date;
  deadline_passed: boolean;
  heartbeat_age_ms: number | null;
  attempt_state: string | null;
}

/**
 * The same for many runs in one transaction (a fetched batch, a batch of outcomes): all their
 * schedules in id order, then all their groups in name order, then all the runs in id order. Every
 * transaction that follows this order (single runs trivially do) can wait on another but never
 * deadlock with it. The run's schedule and group never change after planning, so finding them
 * before the locks is safe.
 */
export async function lockRunBatch(tx: Queryable, runIds: string[], opts: { skipLocked?: boolean } = {}): Promise<BatchScope> {
  const out: BatchScope = { schedules: new Map(), groups: new Map(), runs: new Map() };
  if (runIds.length === 0) return out;
  const s = await tx.query<LockedScheduleRow>(
    `SELECT s.id, s.overlap_policy, s.starting_deadline_seconds, s.expect_records_min, s.retry_base_seconds,
            s.retry_max_seconds, s.deleted_at IS NOT NULL AS deleted,
            ${pausedSql("s")} AS paused,
            ARRAY(SELECT DISTINCT r.concurrency_group FROM runs r
                   WHERE r.id = ANY($1::uuid[]) AND r.schedule_id = s.id AND r.concurrency_group IS NOT NULL) AS run_groups
       FROM schedules s
      WHERE s.id IN (SELECT schedule_id FROM runs WHERE id = ANY($1::uuid[]))
      ORDER BY s.id
        FOR KEY SHARE`,
    [runIds],
  );
  const exclusive = s.rows.filter((r) => r.overlap_policy !== "allow").map((r) => r.id);
  if (exclusive.length > 0) await tx.query(`SELECT 1 FROM schedules WHERE id = ANY($1::uuid[]) ORDER BY id FOR NO KEY UPDATE`, [exclusive]);
  for (const sr of s.rows) {
    out.schedules.set(sr.id, {
      id: sr.id,
      overlapPolicy: sr.overlap_policy,
      startingDeadlineSeconds: sr.starting_deadline_seconds,
      paused: sr.paused,
      deleted: sr.deleted,
      expectRecordsMin: sr.expect_records_min,
      retryBaseSeconds: sr.retry_base_seconds,
      retryMaxSeconds: sr.retry_max_seconds,
    });
  }
  const groupNames = [...new Set(s.rows.flatMap((r) => r.run_groups))];
  if (groupNames.length > 0) {
    const g = await tx.query<{
      name: string;
      max_running: number;
      max_starts: number | null;
      per_seconds: number | null;
      recent_starts: Date[] | null;
    }>(
      `SELECT name, max_running, max_starts, per_seconds, recent_starts FROM concurrency_groups
        WHERE name = ANY($1::text[]) ORDER BY name FOR UPDATE`,
      [groupNames],
    );
    for (const gr of g.rows) {
      const startRate =
        gr.max_starts && gr.per_seconds
          ? { maxStarts: gr.max_starts, perSeconds: gr.per_seconds, recentStarts: gr.recent_starts ?? [] }
          : null;
      out.groups.set(gr.name, { name: gr.name, maxRunning: gr.max_running, startRate });
    }
  }
  const r = await tx.query<LockedRunRow>(
    `SELECT r.id, r.schedule_id, r.kind, r.state, r.wait_reason, r.attempt, r.wakes, r.worker_id, r.handler, r.payload,
            r.timeout_seconds, r.grace_seconds, r.max_attempts, r.concurrency_group, r.idempotency_key,
            r.planned_at, r.due_at, r.cancel_requested_at, clock_timestamp() AS now,
            ${startingDeadlinePassedSql("r", "s")} AS deadline_passed,
            (extract(epoch FROM clock_timestamp() - r.heartbeat_at) * 1000)::float8 AS heartbeat_age_ms,
            (SELECT a.state FROM attempts a WHERE a.run_id = r.id AND a.number = r.attempt) AS attempt_state
       FROM runs r JOIN schedules s ON s.id = r.schedule_id
      WHERE r.id = ANY($1::uuid[])
      ORDER BY r.id
        FOR NO KEY UPDATE OF r ${opts.skipLocked ? "SKIP LOCKED" : ""}`,
    [runIds],
  );
  for (const rr of r.rows) {
    out.runs.set(rr.id, {
      id: rr.id,
      scheduleId: rr.schedule_id,
      kind: rr.kind,
      state: rr.state,
      waitReason: rr.wait_reason,
      attempt: rr.attempt,
      wakes: rr.wakes,
      workerId: rr.worker_id,
      handler: rr.handler,
      payload: rr.payload,
      timeoutSeconds: rr.timeout_seconds,
      graceSeconds: rr.grace_seconds,
      maxAttempts: rr.max_attempts,
      concurrencyGroup: rr.concurrency_group,
      idempotencyKey: rr.idempotency_key,
      plannedAt: rr.planned_at,
      dueAt: rr.due_at,
      cancelRequestedAt: rr.cancel_requested_at,
      currentAttemptState: rr.attempt_state,
      now: rr.now,
      deadlinePassed: rr.deadline_passed,
      heartbeatAgeMs: rr.heartbeat_age_ms,
    });
  }
  return out;
}
