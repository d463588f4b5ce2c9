// A manual trigger's run, enqueued by the trigger's own transaction, for the latency of one run: the run row
// goes in already 'queued' with its 'planned' and 'enqueued' events and the dispatchers' wake-up (NOTIFY
// 'vigil_due', delivered at commit) in ONE statement, and its pg-boss job in the next, so no planner hop
// (NOTIFY → planner tick → enqueue transaction → NOTIFY) stands between the operator's click and a dispatcher.
// It is what the planner's enqueue (core/runs/plan/enqueue-due-runs.ts) does for a manual run, minus what cannot
// apply to a run created this instant: its starting deadline counts from now, and a manual run is enqueued
// while its schedule is paused. Overlap, group and rate rules are the claim's to decide, as for every run.
import crypto from "node:crypto";
import type { PgBoss } from "pg-boss";
import type { Queryable } from "../../db/pool";
import { AUDIT_COLUMNS, auditValues, type AuditInput } from "../../audit/record-audit";
import { NotFoundError } from "../../errors";
import { ensureRunQueues, runQueueFor } from "../../queue/boss";
import { runQueueKey, runQueueKeySql } from "../../queue/worker-pool";
import { DUE_CHANNEL, OPERATOR_PRIORITY, runJobOptions, sendRunJobs } from "../../queue/send-run-job";
import { ASYNC_COMMIT_SQL, canFlushWal, flushWal } from "../../db/flush-wal";
import { snapshotColumns, snapshotValues } from "../schedule-snapshot";

export interface TriggeredRun {
  id: string;
  /** Planned, due and enqueued at this database time. */
  now: Date;
}

/** SQL: a timestamptz column as JavaScript's toISOString() writes it (events and audit rows compare as text). */
const ISO_MS = (col: string) => `to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
/** The place of `after` among AUDIT_COLUMNS. */
const AFTER = 7;

const INSERT_TRIGGERED_RUN_SQL = `
  WITH t AS (SELECT clock_timestamp() AS now),
  ins AS (
    INSERT INTO runs (id, schedule_id, kind, planned_at, due_at, enqueued_at, idempotency_key, state, ${snapshotColumns()})
    SELECT $1, s.id, 'manual', t.now, t.now, t.now, $3, 'queued', ${snapshotValues("s", { payload: "coalesce($4::jsonb, s.payload)" })}
      FROM schedules s, t
     WHERE s.id = $2
    RETURNING id, handler, due_at, timeout_seconds, grace_seconds, concurrency_group
  ),
  ev AS (
    INSERT INTO run_events (run_id, type, attempt, message, data)
    SELECT id, 'planned', NULL, $5, $6::jsonb FROM ins
    UNION ALL
    SELECT id, 'enqueued', 1, '', jsonb_build_object('dueAt', ${ISO_MS("due_at")}, 'wake', 0) FROM ins
  )
  SELECT ins.id, ins.handler, ins.due_at, ins.timeout_seconds, ins.grace_seconds,
         pg_notify($7, round(extract(epoch FROM ins.due_at) * 1000)::bigint || ' ' || ${runQueueKeySql("ins.handler", "s.team_id")}) IS NULL AS notified
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
        priority: OPERATOR_PRIORITY,
        timeoutSeconds: r.timeout_seconds,
        graceSeconds: r.grace_seconds,
      },
    ],
    { notify: false },
  );
  return { id: r.id, now: r.due_at };
}

/**
 * The whole trigger as ONE autocommit statement (one round trip, one commit): the queued run, its 'planned' and
 * 'enqueued' events, its pg-boss job, the audit row and the dispatchers' wake-up (naming the job: worker/claim-notified-job.ts). The job insert is pg-boss's own
 * statement (boss.insert on a recording executeSql), run as one more data-modifying CTE — the way pg-boss embeds it
 * in its own flows (insertFlowJobs). The statement fails as a whole (division by zero) when the schedule row no
 * longer matches what the caller read (deleted, or its handler — and so the job's queue — or the timeout the job's
 * expiry is computed from changed meanwhile): then it returns null and the caller reads the schedule again.
 * Where the server allows it (core/db/flush-wal.ts), the statement commits without waiting for the WAL flush, so the
 * dispatchers hear the NOTIFY one disk flush sooner, and the flush is waited for afterwards: the caller still gets
 * its answer only once the run, its job and the audit row are on disk. A dispatcher's claim of the run is a
 * synchronous commit, which flushes this one first; a handler never starts on a run a crash could still lose.
 * Lock order (record-audit.ts): the run's insert locks the schedule row (FOR KEY SHARE, the lock its foreign key
 * takes anyway) before the audit CTE, which reads the inserted row, takes the chain's lock. Left to the foreign
 * key alone, the row lock would come at the end of the statement, after the chain's lock: the opposite order of
 * a pause holding the row FOR UPDATE while it writes its audit row, and the two deadlock.
 */
export async function triggerRunInOneStatement(
  db: Queryable,
  boss: PgBoss,
  run: {
    id: string;
    /** pool: the schedule's team's worker pool as the caller read it (the statement checks it still holds). */
    schedule: { id: string; handler: string; timeoutSeconds: number; graceSeconds: number; pool: string | null };
    idempotencyKey: string;
    message: string;
    data: Record<string, unknown>;
    audit: AuditInput;
  },
): Promise<TriggeredRun | null> {
  const queueKey = runQueueKey(run.schedule.handler, run.schedule.pool);
  const options = runJobOptions({
    runId: run.id,
    attempt: 1,
    handler: run.schedule.handler,
    dueAt: null,
    priority: OPERATOR_PRIORITY,
    timeoutSeconds: run.schedule.timeoutSeconds,
    graceSeconds: run.schedule.graceSeconds,
  });
  const jobId = options.id;
  const job = await pgBossInsertStatement(boss, queueKey, options);
  if (!job) return null;
  const asyncCommit = await canFlushWal(db);
  const a = 9; // first audit parameter
  const text = `
    WITH t AS (SELECT clock_timestamp() AS now),
    ins AS (
      INSERT INTO runs (id, schedule_id, kind, planned_at, due_at, enqueued_at, idempotency_key, state, ${snapshotColumns()})
      SELECT $1, s.id, 'manual', t.now, t.now, t.now, $3, 'queued', ${snapshotValues("s")}
        FROM schedules s, t
       WHERE s.id = $2 AND s.deleted_at IS NULL AND s.handler = $4 AND s.timeout_seconds = $20 AND s.grace_seconds = $21
         AND (SELECT tp.worker_pool FROM teams tp WHERE tp.id = s.team_id) IS NOT DISTINCT FROM $24::text
         FOR KEY SHARE OF s
      RETURNING id, handler, due_at
    ),
    ev AS (
      INSERT INTO run_events (run_id, type, attempt, message, data)
      SELECT id, 'planned', NULL, $5, $6::jsonb FROM ins
      UNION ALL
      SELECT id, 'enqueued', 1, '', jsonb_build_object('dueAt', ${ISO_MS("due_at")}, 'wake', 0) FROM ins
    ),
    job AS (${job.text.replace(/\$1(?!\d)/g, () => "$8")}),
    au AS (
      INSERT INTO audit_events (${AUDIT_COLUMNS})
      VALUES (${Array.from({ length: 11 }, (_, i) => (i === AFTER ? `$${a + i}::jsonb || (SELECT jsonb_build_object('plannedAt', ${ISO_MS("due_at")}) FROM ins)` : `$${a + i}`)).join(", ")})
    )
    SELECT (SELECT due_at FROM ins) AS due_at, 1 / (SELECT count(*) FROM ins)::int AS one,
           (SELECT pg_notify($7, round(extract(epoch FROM due_at) * 1000)::bigint || ' ' || $23::text || ' ' || $22::text) FROM ins) IS NULL AS notified,
           ${asyncCommit ? ASYNC_COMMIT_SQL : "NULL"} AS commit_mode`;
  try {
    // Named: each connection parses and plans this five-CTE statement once per queue, not on every trigger.
    const name = `vigil-trigger-${crypto.createHash("sha256").update(text).digest("hex").slice(0, 16)}`;
    const { rows } = await db.query<{ due_at: Date }>({
      name,
      text,
      values: [
        run.id,
        run.schedule.id,
        run.idempotencyKey,
        run.schedule.handler,
        run.message,
        JSON.stringify(run.data),
        DUE_CHANNEL,
        job.param,
        ...auditValues(run.audit),
        run.schedule.timeoutSeconds,
        run.schedule.graceSeconds,
        jobId,
        queueKey,
        run.schedule.pool,
      ],
    });
    if (asyncCommit) await flushWal(db);
    return { id: run.id, now: rows[0]!.due_at };
  } catch (err) {
    if ((err as { code?: string }).code === "22012") return null; // the schedule changed under us: see above
    throw err;
  }
}

/**
 * pg-boss's insert statement for one job on a handler's run queue, and its one parameter — recorded, not run.
 * Null when it is not a plain INSERT with one parameter (a pg-boss whose queues NOTIFY, or a new version):
 * the caller then sends the job the ordinary way.
 */
async function pgBossInsertStatement(
  boss: PgBoss,
  queueKey: string,
  job: Record<string, unknown>,
): Promise<{ text: string; param: unknown } | null> {
  await ensureRunQueues(boss, [queueKey]);
  let recorded: { text: string; values: unknown[] } | null = null;
  await boss.insert(runQueueFor(queueKey), [job as never], {
    db: {
      executeSql: async (text: string, values?: unknown[]) => {
        recorded = { text, values: values ?? [] };
        return { rows: [] };
      },
    },
  });
  const r = recorded as { text: string; values: unknown[] } | null;
  if (!r || r.values.length !== 1 || !/^\s*INSERT\s/i.test(r.text) || (r.text.match(/\$\d+/g) ?? []).some((p) => p !== "$1")) return null;
  return { text: r.text, param: r.values[0] };
}
