// A manual trigger's run, enqueued by the trigger's own transaction (issue 16, latency of one run): the run row
// goes in already 'queued' with its 'planned' and 'enqueued' events and the dispatchers' wake-up (NOTIFY
// 'vigil_due', delivered at commit) in ONE statement, and its pg-boss job in the next, so no planner hop
// (NOTIFY → planner tick → enqueue transaction → NOTIFY) stands between the operator's click and a dispatcher.
// It is what the planner's enqueue (core/runs/plan/enqueue-due-runs.ts) does for a manual run, minus what cannot
// apply to a run created this instant: its starting deadline counts from now, and a manual run is enqueued
// while its schedule is paused. Overlap, group and rate rules are the claim's to decide, as for every run.
import type { PgBoss } from "pg-boss";
import type { Queryable } from "../db/pool";
import { NotFoundError } from "../errors";
import { sendRunJobs } from "../runs/plan/enqueue-due-runs";
import { plainRunSql } from "../runs/plain-run";
import { DUE_CHANNEL } from "../queue/send-run-job";

export interface TriggeredRun {
  id: string;
  /** Planned, due and enqueued at this database time. */
  now: Date;
}

const INSERT_TRIGGERED_RUN_SQL = `
  WITH t AS (SELECT clock_timestamp() AS now),
  ins AS (
    INSERT INTO runs (id, schedule_id, kind, planned_at, due_at, enqueued_at, idempotency_key, state, handler, payload,
                      timeout_seconds, grace_seconds, max_attempts, concurrency_group)
    SELECT $1, s.id, 'manual', t.now, t.now, t.now, $3, 'queued', s.handler, coalesce($4::jsonb, s.payload),
           s.timeout_seconds, s.grace_seconds, s.retry_max_attempts, s.concurrency_group
      FROM schedules s, t
     WHERE s.id = $2
    RETURNING id, handler, due_at, timeout_seconds, grace_seconds, concurrency_group
  ),
  ev AS (
    INSERT INTO run_events (run_id, type, attempt, message, data)
    SELECT id, 'planned', NULL, $5, $6::jsonb FROM ins
    UNION ALL
    SELECT id, 'enqueued', 1, '', jsonb_build_object('dueAt', to_char(due_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'wake', 0) FROM ins
  )
  SELECT ins.id, ins.handler, ins.due_at, ins.timeout_seconds, ins.grace_seconds, ${plainRunSql("ins", "s")} AS plain,
         pg_notify($7, round(extract(epoch FROM ins.due_at) * 1000)::bigint || ' ' || ins.handler) IS NULL AS notified
    FROM ins JOIN schedules s ON s.id = $2`;

/**
 * Inserts the queued run and sends its job on the caller's transaction (both commit or neither). The NOTIFY
 * payload is core/queue/send-run-job.ts dueNotice's "<due epoch ms> <handler>".
 */
export async function insertTriggeredRun(
  tx: Queryable,
  boss: PgBoss,
  run: { id: string; scheduleId: string; idempotencyKey: string; payload: unknown; message: string; data: Record<string, unknown> },
): Promise<TriggeredRun> {
  const { rows } = await tx.query<{
    id: string;
    handler: string;
    due_at: Date;
    timeout_seconds: number;
    grace_seconds: number;
    plain: boolean;
  }>(INSERT_TRIGGERED_RUN_SQL, [
    run.id,
    run.scheduleId,
    run.idempotencyKey,
    run.payload === undefined ? null : JSON.stringify(run.payload),
    run.message,
    JSON.stringify(run.data),
    DUE_CHANNEL,
  ]);
  const r = rows[0];
  if (!r) throw new NotFoundError("Schedule", run.scheduleId);
  await sendRunJobs(
    tx,
    boss,
    [
      {
        runId: r.id,
        handler: r.handler,
        attempt: 1,
        wake: 0,
        dueAt: r.due_at,
        expireInSeconds: r.timeout_seconds + r.grace_seconds + 60,
        plain: r.plain,
      },
    ],
    { notify: false },
  );
  return { id: r.id, now: r.due_at };
}
