// The planner's sweep over occurrences whose time has come without a start: applies the misfire policy
// (mark-missed-decision.ts) per schedule, under the schedule's row lock, so that every due firing ends in a
// visible state — missed, paused, or rescued to run — and none is silently absent.
import type pg from "pg";
import type { PgBoss } from "pg-boss";
import { runQueueFor } from "../../queue/boss";
import { findRunPools, runQueueKey } from "../../queue/worker-pool";
import { jobIdFor } from "../../queue/job-id";
import { systemActor } from "../../auth/roles";
import { recordAudits } from "../../audit/record-audit";
import { withTransaction, type Queryable } from "../../db/pool";
import type { Schedule } from "../../schedules/schedule-record";
import type { MisfirePolicy } from "../../schedules/schedule-input";
import { decideMisfires, type MisfireDecision, type PendingRun } from "./mark-missed-decision";
import { pausedSql } from "../paused";
import { recordRunEvents } from "../record-run-event";
import { startingDeadlinePassedSql } from "../starting-deadline";

/**
 * Schedules with something for the sweep to decide, at one instant `now` (a clock_timestamp() read once).
 * The first part looks for not-started runs past their starting deadline: `now > due_at + deadline` of the run's
 * schedule. Since no live schedule's deadline is below the smallest one, such a run has `due_at < now − that
 * smallest deadline` — a range of runs_unstarted_due_idx (due_at WHERE state IN ('planned', 'queued')) — so only that
 * range is read and checked, instead of every due unstarted run (a 10,000-run fan-out due this second is none of it).
 * The prefilter is implied by the exact test below it, so the answer is the same (mark-missed-runs.db.test.ts). The
 * smallest deadline is one read of schedules_starting_deadline_idx. The second part reads paused schedules only
 * (schedules_paused_until_idx).
 */
export async function findSchedulesToSweep(db: Queryable): Promise<string[]> {
  const { rows } = await db.query<{ schedule_id: string }>(
    `WITH t AS MATERIALIZED (
       SELECT c.now, c.now - make_interval(secs => coalesce(
                (SELECT d.starting_deadline_seconds FROM schedules d WHERE d.deleted_at IS NULL ORDER BY d.starting_deadline_seconds LIMIT 1),
                0)) AS overdue_before
         FROM (SELECT clock_timestamp() AS now) c)
     SELECT DISTINCT r.schedule_id
       FROM t, runs r JOIN schedules s ON s.id = r.schedule_id
      WHERE r.state IN ('planned', 'queued') AND r.due_at < t.overdue_before AND r.due_at <= t.now
        AND NOT (r.state = 'planned' AND r.wait_reason IS NOT NULL)
        AND s.deleted_at IS NULL
        AND (NOT ${pausedSql("s", "t.now")} OR r.kind = 'manual')
        AND ${startingDeadlinePassedSql("r", "s", "t.now")}
     UNION
     SELECT r.schedule_id
       FROM t, runs r JOIN schedules s ON s.id = r.schedule_id
      WHERE ${pausedSql("s", "t.now")} AND s.deleted_at IS NULL
        AND r.kind = 'scheduled' AND r.state IN ('planned', 'queued') AND r.wait_reason IS NULL
        AND r.due_at <= t.now AND r.planned_at <= t.now
      GROUP BY r.schedule_id, s.misfire_policy, s.catch_up_limit
     HAVING count(*) > CASE s.misfire_policy WHEN 'skip' THEN 0 WHEN 'run_once' THEN 1 ELSE s.catch_up_limit END`,
  );
  return rows.map((r) => r.schedule_id);
}

export interface SweepOutcome {
  scheduleId: string;
  missed: number;
  rescued: number;
  paused: number;
}

/** Sweeps each schedule in its own short transaction; a schedule locked by another planner is skipped. */
export async function sweepMisfires(pool: pg.Pool, scheduleIds: readonly string[], boss?: PgBoss): Promise<SweepOutcome[]> {
  const out: SweepOutcome[] = [];
  for (const id of scheduleIds) {
    const o = await withTransaction((tx) => sweepSchedule(tx, id, boss), pool);
    if (o && o.missed + o.rescued + o.paused > 0) out.push(o);
  }
  return out;
}

/** Locks the schedule (skipping it when another transaction holds it) and applies the misfire policy. */
export async function sweepSchedule(tx: Queryable, scheduleId: string, boss?: PgBoss): Promise<SweepOutcome | null> {
  const { rows: sched } = await tx.query<{
    id: string;
    misfire_policy: MisfirePolicy;
    catch_up_limit: number;
    starting_deadline_seconds: number;
    paused: boolean;
    /** null while nothing was planned yet (planned_through NULL): not caught up. */
    caught_up: boolean | null;
  }>(
    `SELECT s.id, s.misfire_policy, s.catch_up_limit, s.starting_deadline_seconds, ${pausedSql("s")} AS paused,
            s.planned_through >= clock_timestamp() AS caught_up
       FROM schedules s WHERE s.id = $1 AND s.deleted_at IS NULL FOR UPDATE OF s SKIP LOCKED`,
    [scheduleId],
  );
  const s = sched[0];
  if (!s) return null;
  const pending = await lockPendingRuns(tx, scheduleId);
  const decision = decideMisfires(
    pending,
    { misfirePolicy: s.misfire_policy, catchUpLimit: s.catch_up_limit, paused: s.paused },
    s.caught_up === true,
  );
  await applyMisfireDecision(
    tx,
    { id: scheduleId, misfirePolicy: s.misfire_policy, startingDeadlineSeconds: s.starting_deadline_seconds },
    decision,
    pending,
    "misfire",
    boss,
  );
  return { scheduleId, missed: decision.missed.length, rescued: decision.rescue.length, paused: decision.paused.length };
}

/** The schedule's not-started runs whose planned time has come, locked (rows being claimed are skipped). */
export async function lockPendingRuns(tx: Queryable, scheduleId: string): Promise<PendingRun[]> {
  return (await lockPendingRunsOf(tx, [scheduleId])).get(scheduleId)!;
}

/** lockPendingRuns for many schedules in one statement (a maintenance resume): per schedule id, in planned order. */
export async function lockPendingRunsOf(tx: Queryable, scheduleIds: readonly string[]): Promise<Map<string, PendingRun[]>> {
  const out = new Map<string, PendingRun[]>(scheduleIds.map((id) => [id, []]));
  if (scheduleIds.length === 0) return out;
  const { rows } = await tx.query<{
    id: string;
    schedule_id: string;
    handler: string;
    planned_at: Date;
    kind: PendingRun["kind"];
    wait_reason: string | null;
    state: string;
    attempt: number;
    wakes: number;
    overdue: boolean;
    rescued_before: boolean;
  }>(
    `SELECT r.id, r.schedule_id, r.handler, r.planned_at, r.kind, r.wait_reason, r.state, r.attempt, r.wakes,
            (r.due_at <= clock_timestamp() AND ${startingDeadlinePassedSql("r", "s")}) AS overdue,
            EXISTS (SELECT 1 FROM run_events e WHERE e.run_id = r.id AND e.type = 'replanned' AND e.data ? 'rescue') AS rescued_before
       FROM runs r JOIN schedules s ON s.id = r.schedule_id
      WHERE r.schedule_id = ANY($1::uuid[]) AND r.state IN ('planned', 'queued') AND r.planned_at <= clock_timestamp()
        AND NOT (r.state = 'planned' AND r.wait_reason IS NOT NULL)
      ORDER BY r.schedule_id, r.planned_at
        FOR UPDATE OF r SKIP LOCKED`,
    [scheduleIds],
  );
  for (const r of rows) {
    out.get(r.schedule_id)?.push({
      id: r.id,
      plannedAt: r.planned_at,
      kind: r.kind,
      waitReason: r.wait_reason,
      overdue: r.overdue,
      rescuedBefore: r.rescued_before,
      jobId: r.state === "queued" ? jobIdFor(r.id, r.attempt + 1, r.wakes) : null,
      handler: r.handler,
    });
  }
  return out;
}

type Why = "misfire" | "resume";

/**
 * Writes a decision: missed and paused runs end with an event each; rescued runs wait their turn to be
 * enqueued one at a time (wait_reason 'catch_up', see enqueue-due-runs.ts) with a fresh deadline from then.
 * One audit row per schedule and sweep summarises what the planner decided.
 */
export async function applyMisfireDecision(
  tx: Queryable,
  schedule: Pick<Schedule, "id" | "misfirePolicy" | "startingDeadlineSeconds">,
  d: MisfireDecision,
  pending: readonly PendingRun[],
  why: Why,
  boss?: PgBoss,
): Promise<void> {
  await applyMisfireDecisions(tx, [{ schedule, decision: d, pending }], why, boss);
}

export interface ScheduleDecision {
  schedule: Pick<Schedule, "id" | "misfirePolicy" | "startingDeadlineSeconds">;
  decision: MisfireDecision;
  pending: readonly PendingRun[];
}

/** applyMisfireDecision for many schedules at once, with a few statements for all of them (a maintenance resume). */
export async function applyMisfireDecisions(tx: Queryable, items: readonly ScheduleDecision[], why: Why, boss?: PgBoss): Promise<void> {
  // Jobs of queued runs that will not start from them: cancelled with the decision, so that after downtime a
  // dispatcher does not spend its first seconds claiming and suppressing a backlog of them.
  const staleJobs = new Map<string, string[]>();
  const pools = boss
    ? await findRunPools(
        tx,
        items.flatMap(({ decision: d }) => [...d.missed, ...d.rescue, ...d.paused]),
      )
    : new Map();
  for (const { decision: d, pending } of items) {
    const byId = new Map(pending.map((r) => [r.id, r]));
    for (const id of [...d.missed, ...d.rescue, ...d.paused]) {
      const r = byId.get(id);
      if (!r?.jobId || !r.handler) continue;
      const queue = runQueueFor(runQueueKey(r.handler, pools.get(id)));
      staleJobs.set(queue, [...(staleJobs.get(queue) ?? []), r.jobId]);
    }
  }
  for (const [queue, ids] of boss ? staleJobs : []) {
    await boss!.cancel(queue, ids, { db: { executeSql: async (text: string, values?: unknown[]) => tx.query(text, values as unknown[]) } });
  }
  const missed = items.flatMap(({ schedule, decision }) =>
    decision.missed.map((id) => ({
      runId: id,
      type: "missed" as const,
      message: `not started within its starting deadline (${schedule.startingDeadlineSeconds} s after due); misfire policy ${schedule.misfirePolicy}`,
      data: { policy: schedule.misfirePolicy, startingDeadlineSeconds: schedule.startingDeadlineSeconds },
    })),
  );
  if (missed.length > 0) {
    await endRuns(
      tx,
      missed.map((e) => e.runId),
      "missed",
    );
    await recordRunEvents(tx, missed);
  }
  const paused = items.flatMap(({ schedule, decision }) =>
    decision.paused.map((id) => ({
      runId: id,
      type: "paused" as const,
      message: `fell inside a pause of its schedule; misfire policy ${schedule.misfirePolicy} does not run it`,
      data: { policy: schedule.misfirePolicy },
    })),
  );
  if (paused.length > 0) {
    await endRuns(
      tx,
      paused.map((e) => e.runId),
      "paused",
    );
    await recordRunEvents(tx, paused);
  }
  const what = why === "resume" ? "on resume" : "after its starting deadline passed";
  const rescued = items.flatMap(({ schedule, decision }) =>
    decision.rescue.map((id) => ({
      runId: id,
      type: "replanned" as const,
      message: `misfire policy ${schedule.misfirePolicy}: runs now ${what} (catch-up, one at a time)`,
      data: { rescue: why, policy: schedule.misfirePolicy },
    })),
  );
  if (rescued.length > 0) {
    await tx.query(
      `UPDATE runs SET state = 'planned', wait_reason = 'catch_up', updated_at = clock_timestamp() WHERE id = ANY($1::uuid[])`,
      [rescued.map((e) => e.runId)],
    );
    await recordRunEvents(tx, rescued);
  }
  // A resume is audited as schedule.resume (with these counts) by resume-schedule.ts.
  if (why !== "misfire") return;
  await recordAudits(
    tx,
    items
      .filter(({ decision: d }) => d.missed.length + d.rescue.length > 0)
      .map(({ schedule, decision: d, pending }) => {
        const plannedAt = new Map(pending.map((r) => [r.id, r.plannedAt]));
        const times = [...d.missed, ...d.rescue].map((id) => plannedAt.get(id)!).sort((a, b) => a.getTime() - b.getTime());
        return {
          actor: systemActor("planner"),
          action: "run.missed",
          targetType: "schedule",
          targetId: schedule.id,
          after: {
            missed: d.missed.length,
            rescued: d.rescue.length,
            policy: schedule.misfirePolicy,
            from: times[0]?.toISOString(),
            to: times.at(-1)?.toISOString(),
          },
        };
      }),
  );
}

async function endRuns(tx: Queryable, ids: string[], state: "missed" | "paused"): Promise<void> {
  // A run that waited (rate limit, retry) keeps no next-attempt time once it is over: the run page would show it.
  await tx.query(
    `UPDATE runs SET state = $2, wait_reason = NULL, next_attempt_at = NULL, updated_at = clock_timestamp() WHERE id = ANY($1::uuid[])`,
    [ids, state],
  );
}
