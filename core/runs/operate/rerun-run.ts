// Re-run: a new attempt of the SAME occurrence — same run row, same idempotency key — for a run that ended
// badly (failed, timed_out, cancelled, hollow, zombie, missed). Because the key is the same, effects the
// earlier attempts made through ctx.once (and Idempotency-Key headers of http.request) are not repeated.
// The run goes to 'retrying' with next_attempt_at = now (max_attempts is raised to the re-run's attempt when the
// retries were used up: if the re-run fails too, it ends failed and can be re-run again), and its job is sent in
// the same transaction: the 'retrying' path of the claim starts it without the first-start checks (starting
// deadline, pause, overlap) — an operator asked for it, as with trigger now. A succeeded run is refused:
// "run again as a new occurrence" is a manual trigger with a new key (core/schedules/trigger-now.ts).
// Lateness: `reruns` is counted up; lateness and completion rules leave re-run occurrences out like backfills
// (core/alerts, core/metrics), so a re-run started hours after its planned time raises no "late" alert and
// does not enter the lateness p95. The timeline shows the re-run as another attempt of the same occurrence.
import type { PgBoss } from "pg-boss";
import type { Actor } from "../../auth/roles";
import { assertMayRunSchedules, assertMayUseHandlers } from "../../auth/program-permission";
import { recordAudit } from "../../audit/record-audit";
import { getPool, withTransaction, type Queryable } from "../../db/pool";
import { ConflictError, NotFoundError } from "../../errors";
import { sendRunJob, OPERATOR_PRIORITY } from "../../queue/send-run-job";
import { runPoolSql } from "../../queue/worker-pool";
import { lockRunScope, type LockedRun } from "../locks/lock-run-scope";
import { recordRunEvent } from "../record-run-event";
import { RERUNNABLE_STATES, type RunState } from "../run-states";
import { listDownstreamToRerun, rerunDownstream, type DownstreamRerunItem } from "../chain/rerun-downstream";

export interface RerunRefusal {
  code: string;
  message: string;
}

export interface RerunPreview {
  runId: string;
  state: string;
  idempotencyKey: string;
  handler: string;
  /** The attempt number the re-run will be. */
  nextAttempt: number;
  /** ctx.once effects already recorded for this occurrence: they will not repeat. */
  onceEffects: number;
  onceKeys: string[];
  /** How often it was re-run before. */
  reruns: number;
  /** Null when a re-run is allowed now; otherwise why not (the POST answers 409 with it). */
  refusal: RerunRefusal | null;
  /** The dry run of `withDownstream`: downstream occurrences down the chain it would put back to wait (core/runs/chain/). */
  downstream: DownstreamRerunItem[];
}

export interface RerunResult {
  runId: string;
  attempt: number;
  state: "retrying";
  onceEffects: number;
  /** With `withDownstream`: the downstream occurrences put back to wait for this one. */
  downstream?: DownstreamRerunItem[];
}

/** Why this run cannot be re-run now, or null. */
export function rerunRefusal(run: Pick<LockedRun, "id" | "state" | "currentAttemptState">, scheduleDeleted: boolean): RerunRefusal | null {
  if (run.state === "succeeded") {
    return {
      code: "run_succeeded",
      message: `Run ${run.id} succeeded; re-running it could repeat its work. Use "run again as a new occurrence" (a manual trigger with a new key) if you really want it to happen again.`,
    };
  }
  if (!(RERUNNABLE_STATES as readonly string[]).includes(run.state)) {
    return {
      code: "run_not_rerunnable",
      message: `Run ${run.id} is ${run.state}; only ${RERUNNABLE_STATES.join(", ")} runs can be re-run.`,
    };
  }
  if (run.currentAttemptState === "running") {
    return { code: "attempt_may_be_alive", message: `Run ${run.id}'s last attempt may still be running; cancel it first.` };
  }
  if (scheduleDeleted) return { code: "schedule_deleted", message: `Run ${run.id}'s schedule was deleted; it cannot be re-run.` };
  return null;
}

async function onceMarkers(db: Queryable, runId: string): Promise<{ count: number; keys: string[] }> {
  const { rows } = await db.query<{ n: number; keys: string[] | null }>(
    `SELECT count(*)::int AS n, (array_agg(key ORDER BY created_at, key))[1:20] AS keys FROM once_markers WHERE run_id = $1`,
    [runId],
  );
  return { count: rows[0]?.n ?? 0, keys: rows[0]?.keys ?? [] };
}

export async function previewRerun(db: Queryable, runId: string): Promise<RerunPreview> {
  const { rows } = await db.query<{
    id: string;
    state: RunState;
    idempotency_key: string;
    handler: string;
    attempt: number;
    reruns: number;
    deleted: boolean;
    current_attempt_state: string | null;
  }>(
    `SELECT r.id, r.state, r.idempotency_key, r.handler, r.attempt, r.reruns, s.deleted_at IS NOT NULL AS deleted,
            (SELECT a.state FROM attempts a WHERE a.run_id = r.id AND a.number = r.attempt) AS current_attempt_state
       FROM runs r JOIN schedules s ON s.id = r.schedule_id WHERE r.id = $1`,
    [runId],
  );
  const r = rows[0];
  if (!r) throw new NotFoundError("Run", runId);
  const once = await onceMarkers(db, runId);
  const downstream = await listDownstreamToRerun(db, runId);
  return {
    runId,
    state: r.state,
    idempotencyKey: r.idempotency_key,
    handler: r.handler,
    nextAttempt: r.attempt + 1,
    onceEffects: once.count,
    onceKeys: once.keys,
    reruns: r.reruns,
    refusal: rerunRefusal({ id: r.id, state: r.state, currentAttemptState: r.current_attempt_state }, r.deleted),
    downstream,
  };
}

export async function rerunRun(
  runId: string,
  actor: Actor,
  reason: string,
  opts: { boss: PgBoss; db?: Queryable; withDownstream?: boolean },
): Promise<RerunResult> {
  const o = { withDownstream: opts.withDownstream };
  if (opts.db) return rerunRunInTransaction(opts.db, opts.boss, runId, actor, reason, o);
  return withTransaction((tx) => rerunRunInTransaction(tx, opts.boss, runId, actor, reason, o), getPool());
}

/** The same on the caller's transaction (bulk re-run puts each in a savepoint). */
export async function rerunRunInTransaction(
  tx: Queryable,
  boss: PgBoss,
  runId: string,
  actor: Actor,
  reason: string,
  opts: { bulkId?: string; withDownstream?: boolean } = {},
): Promise<RerunResult> {
  const scope = await lockRunScope(tx, runId);
  if (!scope) throw new NotFoundError("Run", runId);
  const { run, schedule } = scope;
  await assertMayUseHandlers(tx, actor, [run.handler]);
  // The run's own payload (a trigger may have overridden the schedule's) against its team's rules.
  await assertMayRunSchedules(tx, actor, [run.scheduleId], { payload: run.payload });
  const refusal = rerunRefusal(run, schedule.deleted);
  if (refusal) throw new ConflictError(refusal.message, refusal.code);
  const once = await onceMarkers(tx, runId);
  const nextAttempt = run.attempt + 1;

  const { rows } = await tx.query<{ now: Date; reruns: number; pool: string | null }>(
    `UPDATE runs SET state = 'retrying', wait_reason = NULL, wakes = 0, next_attempt_at = clock_timestamp(),
            max_attempts = greatest(max_attempts, $2), reruns = reruns + 1, finished_at = NULL, error = NULL,
            cancel_requested_at = NULL, cancel_requested_by = NULL, cancel_reason = NULL, updated_at = clock_timestamp()
      WHERE id = $1
      RETURNING next_attempt_at AS now, reruns, ${runPoolSql("runs.schedule_id")} AS pool`,
    [runId, nextAttempt],
  );
  await recordRunEvent(tx, {
    runId,
    type: "rerun_requested",
    attempt: nextAttempt,
    message: `re-run by ${actor.label}: ${reason} — attempt ${nextAttempt}, same key; ${once.count} recorded effect(s) will not repeat`,
    data: {
      actor: actor.label,
      actorType: actor.type,
      reason,
      previousState: run.state,
      nextAttempt,
      onceEffects: once.count,
      ...(opts.bulkId ? { bulkId: opts.bulkId } : {}),
    },
  });
  await sendRunJob(tx, boss, {
    runId,
    handler: run.handler,
    attempt: nextAttempt,
    dueAt: rows[0]!.now,
    priority: OPERATOR_PRIORITY,
    timeoutSeconds: run.timeoutSeconds,
    graceSeconds: run.graceSeconds,
    pool: rows[0]!.pool,
  });
  // Before the audit row: it comes after the last run lock (record-audit.ts's lock order).
  const downstream = opts.withDownstream ? await rerunDownstream(tx, runId, actor, reason) : undefined;
  await recordAudit(tx, {
    actor,
    action: "run.rerun",
    targetType: "run",
    targetId: runId,
    before: { state: run.state, attempt: run.attempt },
    after: {
      state: "retrying",
      attempt: nextAttempt,
      reruns: rows[0]!.reruns,
      onceEffects: once.count,
      ...(opts.bulkId ? { bulkId: opts.bulkId } : {}),
      ...(downstream ? { withDownstream: downstream.map((d) => ({ runId: d.runId, schedule: d.scheduleName, action: d.action })) } : {}),
    },
    reason,
  });
  return { runId, attempt: nextAttempt, state: "retrying", onceEffects: once.count, ...(downstream ? { downstream } : {}) };
}
