// One run's single trace for the run page and GET /api/runs/:id: the run with its schedule's name,
// timings on the database clock, every event in order, attempts, handler logs, worker, key,
// payload, result, error and the next attempt's time.
import type { Queryable } from "../../db/pool";
import { NotFoundError } from "../../errors";
import { classifyLateness } from "../lateness";
import { isTerminal } from "../run-states";
import type { RunRow } from "../run-row";
import { liveWorkerServesSql } from "../../handlers/handler-registry";
import { teamPoolSql } from "../../queue/worker-pool";

export const RUN_TRACE_LOG_LIMIT = 2000;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** getRunTrace's run row: r.* with its schedule's columns and two computed ones. */
interface RunTraceRow extends RunRow {
  schedule_name: string;
  team_id: string;
  team_name: string;
  start_jitter_ms: number;
  expect_records_min: number | null;
  overlap_policy: string;
  completion_gap_ms: number | null;
  heartbeat_age_ms: number | null;
  worker_pool: string | null;
  no_live_worker: boolean | null;
}

/**
 * `deadAfterMs` (the workers' liveness window): with it, a queued or retrying run says whether it waits because no live
 * worker of its team's pool serves its handler (noLiveWorker; core/queue/worker-pool.ts). Without it, noLiveWorker is null.
 */
export async function getRunTrace(db: Queryable, runId: string, opts: { deadAfterMs?: number } = {}) {
  if (!UUID.test(runId)) throw new NotFoundError("Run", runId);
  const { rows } = await db.query<RunTraceRow>(
    `SELECT r.*, s.name AS schedule_name, s.team_id, t.name AS team_name, s.start_jitter_ms, s.expect_records_min, s.overlap_policy,
            (extract(epoch FROM r.finished_at - r.planned_at) * 1000)::float8 AS completion_gap_ms,
            (extract(epoch FROM clock_timestamp() - r.heartbeat_at) * 1000)::float8 AS heartbeat_age_ms,
            p.pool AS worker_pool,
            CASE WHEN $2::float8 IS NOT NULL AND r.state IN ('queued', 'retrying') AND r.wait_reason IS NULL
                 THEN NOT ${liveWorkerServesSql("r.handler", "p.pool", "$2")} END AS no_live_worker
       FROM runs r JOIN schedules s ON s.id = r.schedule_id JOIN teams t ON t.id = s.team_id CROSS JOIN LATERAL (SELECT ${teamPoolSql("s.team_id")} AS pool) p
      WHERE r.id = $1`,
    [runId, opts.deadAfterMs ?? null],
  );
  const r = rows[0];
  if (!r) throw new NotFoundError("Run", runId);
  const [events, attempts, logs] = await Promise.all([
    db.query<{ id: number; at: Date; type: string; attempt: number | null; worker_id: string | null; message: string; data: unknown }>(
      `SELECT id, at, type, attempt, worker_id, message, data FROM run_events WHERE run_id = $1 ORDER BY at, id`,
      [runId],
    ),
    db.query<{
      number: number;
      state: string;
      worker_id: string | null;
      started_at: Date;
      heartbeat_at: Date | null;
      finished_at: Date | null;
      duration_ms: number | null;
      records: number | null;
      error: string | null;
    }>(
      `SELECT number, state, worker_id, started_at, heartbeat_at, finished_at, duration_ms, records, error
         FROM attempts WHERE run_id = $1 ORDER BY number`,
      [runId],
    ),
    db.query<{ id: number; at: Date; attempt: number; level: string; message: string; fields: unknown }>(
      `SELECT id, at, attempt, level, message, fields FROM (
         SELECT * FROM run_logs WHERE run_id = $1 ORDER BY id DESC LIMIT $2) l ORDER BY id`,
      [runId, RUN_TRACE_LOG_LIMIT + 1],
    ),
  ]);
  const logRows = logs.rows.length > RUN_TRACE_LOG_LIMIT ? logs.rows.slice(1) : logs.rows;
  return {
    run: {
      id: r.id as string,
      scheduleId: r.schedule_id as string,
      scheduleName: r.schedule_name as string,
      /** The schedule's team (core/teams/), its id and name. */
      teamId: r.team_id,
      team: r.team_name,
      kind: r.kind as string,
      state: r.state as string,
      waitReason: r.wait_reason as string | null,
      handler: r.handler as string,
      /** The team's worker pool (core/queue/worker-pool.ts), where its jobs go; null: none. */
      workerPool: r.worker_pool,
      /** Queued or retrying with no live worker of that pool serving its handler: it waits until one starts. */
      noLiveWorker: r.no_live_worker === true,
      payload: r.payload as unknown,
      idempotencyKey: r.idempotency_key as string,
      attempt: r.attempt as number,
      maxAttempts: r.max_attempts as number,
      reruns: r.reruns as number,
      workerId: r.worker_id as string | null,
      timeoutSeconds: r.timeout_seconds as number,
      graceSeconds: r.grace_seconds as number,
      concurrencyGroup: r.concurrency_group as string | null,
      overlapPolicy: r.overlap_policy as string,
      expectRecordsMin: r.expect_records_min as number | null,
      records: r.records as number | null,
      result: r.result as unknown,
      error: r.error as string | null,
      // An ended run has no next attempt, whatever an older write left behind (a wait ended by the claim's missed).
      nextAttemptAt: isTerminal(r.state as string) ? null : (r.next_attempt_at as Date | null),
      cancelRequestedAt: r.cancel_requested_at as Date | null,
      cancelRequestedBy: r.cancel_requested_by as string | null,
      cancelReason: r.cancel_reason as string | null,
      timings: {
        plannedAt: r.planned_at as Date,
        dueAt: r.due_at as Date,
        enqueuedAt: r.enqueued_at as Date | null,
        startedAt: r.started_at as Date | null,
        heartbeatAt: r.heartbeat_at as Date | null,
        finishedAt: r.finished_at as Date | null,
        latenessMs: r.lateness_ms as number | null,
        lateness: classifyLateness(r.lateness_ms, r.start_jitter_ms),
        durationMs: r.duration_ms as number | null,
        completionGapMs: r.completion_gap_ms === null ? null : Math.round(r.completion_gap_ms),
        heartbeatAgeMs: r.state === "running" && r.heartbeat_age_ms !== null ? Math.round(r.heartbeat_age_ms) : null,
      },
    },
    events: events.rows.map((e) => ({
      id: Number(e.id),
      at: e.at as Date,
      type: e.type as string,
      attempt: e.attempt as number | null,
      workerId: e.worker_id as string | null,
      message: e.message as string,
      data: e.data as unknown,
    })),
    attempts: attempts.rows.map((a) => ({
      number: a.number as number,
      state: a.state as string,
      workerId: a.worker_id as string | null,
      startedAt: a.started_at as Date,
      heartbeatAt: a.heartbeat_at as Date | null,
      finishedAt: a.finished_at as Date | null,
      durationMs: a.duration_ms as number | null,
      records: a.records as number | null,
      error: a.error as string | null,
    })),
    logs: logRows.map((l) => ({
      id: Number(l.id),
      at: l.at as Date,
      attempt: l.attempt as number,
      level: l.level as string,
      message: l.message as string,
      fields: l.fields as unknown,
    })),
    logsTruncated: logs.rows.length > RUN_TRACE_LOG_LIMIT,
  };
}

export type RunTrace = Awaited<ReturnType<typeof getRunTrace>>;
