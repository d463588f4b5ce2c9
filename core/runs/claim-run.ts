// The claim: one transaction per delivered job decides whether this delivery starts an attempt.
// Everything that must hold across workers is decided here under row locks (see lock-run-scope.ts):
// a second delivery runs nothing, an overdue run is missed, the overlap policy and the concurrency
// group's limit are enforced by the database, and only then does the run become 'running'.
import type { PgBoss } from "pg-boss";
import type { Queryable } from "../db/pool";
import { RUN_QUEUE } from "../queue/boss";
import { systemActor } from "../auth/roles";
import { recordRunEvent } from "./record-run-event";
import { lockRunScope, type LockedRun, type RunScope } from "./lock-run-scope";
import { cancelRunInTransaction } from "./cancel-run";
import { wakeRuns } from "./wake-waiting-runs";

export interface ClaimRequest {
  runId: string;
  /** The attempt number the job was sent for. */
  attempt: number;
  jobId: string;
  workerId: string;
}

/** What the executor needs to run the attempt. */
export interface ClaimedRun {
  runId: string;
  scheduleId: string;
  idempotencyKey: string;
  attempt: number;
  handler: string;
  payload: unknown;
  timeoutSeconds: number;
  graceSeconds: number;
  maxAttempts: number;
  latenessMs: number | null;
}

export type ClaimResult =
  | { kind: "start"; run: ClaimedRun }
  | { kind: "suppressed"; reason: string }
  | { kind: "not_found" }
  | { kind: "missed" }
  | { kind: "skipped_overlap" }
  | { kind: "paused" }
  | { kind: "cancelled" }
  | { kind: "waiting"; reason: "overlap" | "concurrency" };

export async function claimRun(tx: Queryable, boss: PgBoss, req: ClaimRequest): Promise<ClaimResult> {
  const scope = await lockRunScope(tx, req.runId);
  if (!scope) {
    await completeJob(tx, boss, req.jobId);
    return { kind: "not_found" };
  }
  const result = await decide(tx, boss, scope, req);
  // A started attempt keeps its job active until the attempt finishes; every other outcome is final
  // for this delivery.
  if (result.kind !== "start") await completeJob(tx, boss, req.jobId);
  return result;
}

async function decide(tx: Queryable, boss: PgBoss, scope: RunScope, req: ClaimRequest): Promise<ClaimResult> {
  const { run, schedule, group } = scope;
  const event = (type: Parameters<typeof recordRunEvent>[1]["type"], message: string, data?: Record<string, unknown>) =>
    recordRunEvent(tx, { runId: run.id, type, attempt: req.attempt, workerId: req.workerId, message, data: { jobId: req.jobId, ...data } });

  const duplicate = duplicateReason(run, req);
  if (duplicate) {
    await event("duplicate_delivery_suppressed", duplicate, { runState: run.state, runAttempt: run.attempt, jobAttempt: req.attempt });
    return { kind: "suppressed", reason: duplicate };
  }
  const firstStart = run.state === "queued";

  if (firstStart && (schedule.deleted || (schedule.paused && run.kind !== "manual"))) {
    const state = schedule.deleted ? "cancelled" : "paused";
    await endRun(tx, run.id, state);
    await event(schedule.deleted ? "cancelled" : "paused", schedule.deleted ? "schedule was deleted before the run started" : "schedule is paused");
    return { kind: schedule.deleted ? "cancelled" : "paused" };
  }

  if (firstStart && run.deadlinePassed) {
    await endRun(tx, run.id, "missed");
    await event("missed", `not started within the starting deadline (${schedule.startingDeadlineSeconds} s after due)`, {
      dueAt: run.dueAt.toISOString(),
      startingDeadlineSeconds: schedule.startingDeadlineSeconds,
    });
    return { kind: "missed" };
  }

  if (firstStart && schedule.overlapPolicy !== "allow") {
    const active = await activeRunsOfSchedule(tx, schedule.id, run.id);
    if (active.length > 0) {
      const activeIds = active.map((a) => a.id);
      if (schedule.overlapPolicy === "skip") {
        await endRun(tx, run.id, "skipped_overlap");
        await event("skipped_overlap", `another run of the schedule is active (${active.map((a) => a.state).join(", ")})`, { policy: "skip", activeRunIds: activeIds });
        return { kind: "skipped_overlap" };
      }
      if (schedule.overlapPolicy === "buffer_one") {
        const buffered = await tx.query(
          `SELECT id FROM runs WHERE schedule_id = $1 AND state = 'queued' AND wait_reason = 'overlap' AND id <> $2 LIMIT 1`,
          [schedule.id, run.id],
        );
        if (buffered.rows[0]) {
          await endRun(tx, run.id, "skipped_overlap");
          await event("skipped_overlap", "another run is active and one is already buffered", { policy: "buffer_one", activeRunIds: activeIds, bufferedRunId: buffered.rows[0].id });
          return { kind: "skipped_overlap" };
        }
        return wait(tx, run, "overlap", event, { policy: "buffer_one", activeRunIds: activeIds });
      }
      // cancel_running: the newer occurrence wins; the active ones are cancelled like an operator would.
      const actor = systemActor("overlap");
      for (const a of active) {
        await cancelRunInTransaction(tx, a.id, actor, `superseded by run ${run.id} (overlap policy cancel_running)`);
      }
      if ((await activeRunsOfSchedule(tx, schedule.id, run.id)).length > 0) {
        return wait(tx, run, "overlap", event, { policy: "cancel_running", cancelledRunIds: activeIds });
      }
    }
  }

  if (group) {
    const { rows } = await tx.query<{ running: number; older: string[] }>(
      `SELECT (SELECT count(*)::int FROM runs WHERE concurrency_group = $1 AND state = 'running' AND id <> $2) AS running,
              ARRAY(SELECT id FROM runs
                     WHERE concurrency_group = $1 AND state = 'queued' AND wait_reason = 'concurrency' AND (due_at, id) < ($3, $2::uuid)
                     ORDER BY due_at, id LIMIT $4) AS older`,
      [group.name, run.id, run.dueAt, group.maxRunning],
    );
    const { running, older } = rows[0]!;
    const data = { group: group.name, maxRunning: group.maxRunning, running };
    if (running >= group.maxRunning) return wait(tx, run, "concurrency", event, data);
    if (older.length > 0) {
      // First come, first served: a free slot goes to runs that have waited longer (woken now), not
      // to whichever job was fetched first.
      const woken = older.slice(0, group.maxRunning - running);
      await wakeRuns(tx, boss, woken, "a slot is free and it waited longer");
      return wait(tx, run, "concurrency", event, { ...data, yieldedTo: woken });
    }
  }

  return start(tx, run, req);
}

function duplicateReason(run: LockedRun, req: ClaimRequest): string | null {
  if (run.state !== "queued" && run.state !== "retrying") return `run is already ${run.state}`;
  if (req.attempt !== run.attempt + 1) return `job is for attempt ${req.attempt}, the run expects attempt ${run.attempt + 1}`;
  if (run.state === "retrying" && run.currentAttemptState === "running") return `attempt ${run.attempt} may still be alive`;
  return null;
}

async function activeRunsOfSchedule(tx: Queryable, scheduleId: string, exceptRunId: string): Promise<{ id: string; state: string }[]> {
  const { rows } = await tx.query<{ id: string; state: string }>(
    `SELECT id, state FROM runs WHERE schedule_id = $1 AND state IN ('running', 'retrying') AND id <> $2 ORDER BY planned_at`,
    [scheduleId, exceptRunId],
  );
  return rows;
}

async function wait(
  tx: Queryable,
  run: LockedRun,
  reason: "overlap" | "concurrency",
  event: (type: "waiting", message: string, data?: Record<string, unknown>) => Promise<void>,
  data: Record<string, unknown>,
): Promise<ClaimResult> {
  await tx.query(`UPDATE runs SET wait_reason = $2, updated_at = clock_timestamp() WHERE id = $1`, [run.id, reason]);
  await event("waiting", reason === "overlap" ? "waiting for the active run of this schedule to end" : `waiting for a slot in concurrency group ${String(data.group)}`, {
    reason,
    ...data,
  });
  return { kind: "waiting", reason };
}

async function endRun(tx: Queryable, runId: string, state: "missed" | "skipped_overlap" | "paused" | "cancelled"): Promise<void> {
  await tx.query(
    `UPDATE runs SET state = $2, wait_reason = NULL, finished_at = clock_timestamp(), updated_at = clock_timestamp() WHERE id = $1`,
    [runId, state],
  );
}

async function start(tx: Queryable, run: LockedRun, req: ClaimRequest): Promise<ClaimResult> {
  const { rows } = await tx.query(
    `WITH t AS (SELECT clock_timestamp() AS now)
     UPDATE runs r SET state = 'running', attempt = r.attempt + 1, wait_reason = NULL, worker_id = $2,
            started_at = coalesce(r.started_at, t.now), heartbeat_at = t.now, next_attempt_at = NULL,
            lateness_ms = coalesce(r.lateness_ms, round(extract(epoch FROM t.now - r.planned_at) * 1000)::int),
            updated_at = t.now
       FROM t
      WHERE r.id = $1
      RETURNING r.attempt, r.lateness_ms, t.now`,
    [run.id, req.workerId],
  );
  const row = rows[0]!;
  await tx.query(
    `INSERT INTO attempts (run_id, number, state, worker_id, started_at, heartbeat_at) VALUES ($1, $2, 'running', $3, $4, $4)`,
    [run.id, row.attempt, req.workerId, row.now],
  );
  await recordRunEvent(tx, {
    runId: run.id,
    type: "started",
    attempt: row.attempt,
    workerId: req.workerId,
    message: row.attempt === 1 ? `started ${row.lateness_ms} ms after planned` : `attempt ${row.attempt} of ${run.maxAttempts} started`,
    data: { jobId: req.jobId, latenessMs: row.lateness_ms },
  });
  return {
    kind: "start",
    run: {
      runId: run.id,
      scheduleId: run.scheduleId,
      idempotencyKey: run.idempotencyKey,
      attempt: row.attempt,
      handler: run.handler,
      payload: run.payload,
      timeoutSeconds: run.timeoutSeconds,
      graceSeconds: run.graceSeconds,
      maxAttempts: run.maxAttempts,
      latenessMs: row.lateness_ms,
    },
  };
}

async function completeJob(tx: Queryable, boss: PgBoss, jobId: string): Promise<void> {
  await boss.complete(RUN_QUEUE, jobId, null, { db: { executeSql: (text: string, values?: unknown[]) => tx.query(text, values as unknown[]) } });
}
