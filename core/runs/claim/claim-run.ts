// The claim: one transaction per fetched batch of jobs decides, for each delivery, whether it starts
// an attempt. Everything that must hold across workers is decided under row locks (locks/lock-run-scope.ts):
// a second delivery runs nothing, an overdue run is missed, the overlap policy and the concurrency
// group's limit are enforced by the database, and only then does a run become 'running'. The reads
// and writes are set-based, so a batch of any size costs a handful of round trips.
// The group's start-rate limit (start-rate-limit.ts) is one more step under the same group lock.
// Most deliveries need none of that: a run nothing else holds back starts in one round trip
// (claim-free-runs.ts), which hands the rest to claimRuns.
// Jobs are settled (completed) by the caller after commit: a job whose run did not start is done;
// a started run's job is settled when its attempt finishes.
import type { PgBoss } from "pg-boss";
import type { Queryable } from "../../db/pool";
import { systemActor } from "../../auth/roles";
import { applyToView, decideClaim, type ClaimAction, type ClaimView } from "./claim-decision";
import { lockRunBatch } from "../locks/lock-run-scope";
import { cancelRunInTransaction } from "../operate/cancel-run";
import { wakeRuns } from "../locks/wake-waiting-runs";
import { applyStartRates, readRateViews } from "./start-rate-limit";

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

/** A started run as the claim statements return it (RETURNING r.id, r.schedule_id, …). */
export interface StartedRunRow {
  id: string;
  schedule_id: string;
  idempotency_key: string;
  attempt: number;
  handler: string;
  payload: unknown;
  timeout_seconds: number;
  grace_seconds: number;
  max_attempts: number;
  lateness_ms: number | null;
}

export function startedRun(r: StartedRunRow): ClaimResult {
  return {
    kind: "start",
    run: {
      runId: r.id,
      scheduleId: r.schedule_id,
      idempotencyKey: r.idempotency_key,
      attempt: r.attempt,
      handler: r.handler,
      payload: r.payload,
      timeoutSeconds: r.timeout_seconds,
      graceSeconds: r.grace_seconds,
      maxAttempts: r.max_attempts,
      latenessMs: r.lateness_ms,
    },
  };
}

export type ClaimResult =
  | { kind: "start"; run: ClaimedRun }
  | { kind: "suppressed"; reason: string }
  | { kind: "not_found" }
  | { kind: "missed" }
  | { kind: "skipped_overlap" }
  | { kind: "paused" }
  | { kind: "cancelled" }
  | { kind: "waiting"; reason: "overlap" | "concurrency" | "rate_limit" };

export async function claimRun(tx: Queryable, boss: PgBoss, req: ClaimRequest): Promise<ClaimResult> {
  return (await claimRuns(tx, boss, [req]))[0]!;
}

interface EventRow {
  runId: string;
  type: string;
  attempt: number;
  message: string;
  data: Record<string, unknown>;
}

// What starting an attempt writes besides the run row, shared by both claim paths: `from` yields the
// started runs (id, attempt, max_attempts, lateness_ms, job_id, now), `worker` is the worker id's SQL.
export const attemptRowsSql = (from: string, worker: string) =>
  `INSERT INTO attempts (run_id, number, state, worker_id, started_at, heartbeat_at)
   SELECT id, attempt, 'running', ${worker}, now, now FROM ${from}`;
export const startedEventsSql = (from: string, worker: string) =>
  `SELECT id, 'started', attempt, ${worker},
          CASE WHEN attempt = 1 THEN 'started ' || lateness_ms || ' ms after planned'
               ELSE 'attempt ' || attempt || ' of ' || max_attempts || ' started' END,
          jsonb_build_object('jobId', job_id, 'latenessMs', lateness_ms)
     FROM ${from}`;
/** The run row of a started attempt (alias r, the database's time t.now), shared by both claim paths. */
export const START_LATENESS_SQL = `coalesce(r.lateness_ms, round(extract(epoch FROM t.now - r.planned_at) * 1000)::int)`;

/** Claims a batch of deliveries (all for the same worker) under full locks; results are in request order. */
export async function claimRuns(tx: Queryable, boss: PgBoss, reqs: ClaimRequest[]): Promise<ClaimResult[]> {
  if (reqs.length === 0) return [];
  const workerId = reqs[0]!.workerId;
  const scope = await lockRunBatch(tx, [...new Set(reqs.map((r) => r.runId))]);
  const view = await readView(tx, scope);
  view.rate = await readRateViews(tx, scope.groups, scope.runs.values());
  const results: ClaimResult[] = new Array(reqs.length);
  const events: EventRow[] = [];
  const writes: { id: string; action: "start" | "end" | "wait"; state: string | null; waitReason: string | null; jobId: string }[] = [];
  const toWake: string[] = [];
  const rateWaits: { runId: string; wakeAt: Date }[] = [];

  // Oldest due first, so first-come-first-served holds inside a batch too.
  const order = reqs.map((_, i) => i).filter((i) => scope.runs.has(reqs[i]!.runId));
  order.sort((a, b) => scope.runs.get(reqs[a]!.runId)!.dueAt.getTime() - scope.runs.get(reqs[b]!.runId)!.dueAt.getTime());
  for (let i = 0; i < reqs.length; i++) if (!scope.runs.has(reqs[i]!.runId)) results[i] = { kind: "not_found" };

  for (const i of order) {
    const req = reqs[i]!;
    const run = scope.runs.get(req.runId)!;
    const schedule = scope.schedules.get(run.scheduleId)!;
    const group = run.concurrencyGroup ? (scope.groups.get(run.concurrencyGroup) ?? null) : null;
    const item = { run, jobId: req.jobId, attempt: req.attempt };
    let action: ClaimAction = decideClaim(item, schedule, group, view);
    if (action.kind === "cancel_active") {
      const actor = systemActor("overlap");
      for (const id of action.runIds)
        await cancelRunInTransaction(tx, id, actor, `superseded by run ${run.id} (overlap policy cancel_running)`);
      const { rows } = await tx.query<{ id: string; state: string }>(
        `SELECT id, state FROM runs WHERE schedule_id = $1 AND state IN ('running', 'retrying')`,
        [schedule.id],
      );
      view.active.set(schedule.id, rows);
      action = decideClaim(item, schedule, group, view, true);
    }
    applyToView(view, run, schedule, action);
    const ev = (type: string, message: string, data?: Record<string, unknown>) =>
      events.push({ runId: run.id, type, attempt: req.attempt, message, data: { jobId: req.jobId, ...data } });

    switch (action.kind) {
      case "suppress":
        ev("duplicate_delivery_suppressed", action.reason, { runState: run.state, runAttempt: run.attempt, jobAttempt: req.attempt });
        results[i] = { kind: "suppressed", reason: action.reason };
        break;
      case "end":
        writes.push({ id: run.id, action: "end", state: action.state, waitReason: null, jobId: req.jobId });
        ev(action.event, action.message, action.data);
        run.state = action.state;
        results[i] = { kind: action.state };
        break;
      case "wait":
        writes.push({ id: run.id, action: "wait", state: null, waitReason: action.reason, jobId: req.jobId });
        ev("waiting", action.message, { reason: action.reason, ...action.data });
        if (action.wake) toWake.push(...action.wake);
        if (action.reason === "rate_limit") rateWaits.push({ runId: run.id, wakeAt: action.wakeAt });
        run.waitReason = action.reason;
        results[i] = { kind: "waiting", reason: action.reason };
        break;
      case "start":
        writes.push({ id: run.id, action: "start", state: null, waitReason: null, jobId: req.jobId });
        run.state = "running";
        run.attempt += 1;
        results[i] = {
          kind: "start",
          run: {
            runId: run.id,
            scheduleId: run.scheduleId,
            idempotencyKey: run.idempotencyKey,
            attempt: run.attempt,
            handler: run.handler,
            payload: run.payload,
            timeoutSeconds: run.timeoutSeconds,
            graceSeconds: run.graceSeconds,
            maxAttempts: run.maxAttempts,
            latenessMs: null,
          },
        };
        break;
    }
  }

  const started = await applyClaims(tx, workerId, writes, events);
  for (const r of results) if (r?.kind === "start") r.run.latenessMs = started.get(r.run.runId) ?? null;
  if (view.rate) await applyStartRates(tx, boss, started.size > 0 ? [...started.keys()] : [], rateWaits);
  if (toWake.length > 0) await wakeRuns(tx, boss, [...new Set(toWake)], "a slot is free and it waited longer");
  return results;
}

/** Reads, under the batch's locks, the other runs its decisions depend on (only when some do). */
async function readView(tx: Queryable, scope: Awaited<ReturnType<typeof lockRunBatch>>): Promise<ClaimView> {
  const view: ClaimView = { active: new Map(), buffered: new Map(), running: new Map(), waiting: new Map() };
  const scheduleIds = [...scope.schedules.values()].filter((s) => s.overlapPolicy !== "allow").map((s) => s.id);
  const groups = [...scope.groups.keys()];
  if (scheduleIds.length === 0 && groups.length === 0) return view;
  // 'running' rows carry the group's count (as text) in state; 'active' rows have no due_at.
  const { rows } = await tx.query<
    | { k: "active"; key: string; id: string; state: string; due_at: null }
    | { k: "buffered" | "waiting"; key: string; id: string; state: string; due_at: Date }
    | { k: "running"; key: string; id: null; state: string; due_at: null }
  >(
    `SELECT 'active' AS k, schedule_id::text AS key, id, state, NULL::timestamptz AS due_at FROM runs
      WHERE schedule_id = ANY($1::uuid[]) AND state IN ('running', 'retrying')
     UNION ALL
     SELECT 'buffered', schedule_id::text, id, state, due_at FROM runs
      WHERE schedule_id = ANY($1::uuid[]) AND state = 'queued' AND wait_reason = 'overlap'
     UNION ALL
     SELECT 'running', concurrency_group, NULL, count(*)::text, NULL FROM runs
      WHERE concurrency_group = ANY($2::text[]) AND state = 'running' GROUP BY concurrency_group
     UNION ALL
     SELECT 'waiting', concurrency_group, id, state, due_at FROM (
       SELECT *, row_number() OVER (PARTITION BY concurrency_group ORDER BY due_at, id) AS rn FROM runs
        WHERE concurrency_group = ANY($2::text[]) AND state = 'queued' AND wait_reason = 'concurrency') w
      WHERE rn <= 100
     ORDER BY 1, 2, 5 NULLS FIRST, 3`,
    [scheduleIds, groups],
  );
  for (const r of rows) {
    if (r.k === "active") view.active.set(r.key, [...(view.active.get(r.key) ?? []), { id: r.id, state: r.state }]);
    else if (r.k === "buffered") view.buffered.set(r.key, view.buffered.get(r.key) ?? r.id);
    else if (r.k === "running") view.running.set(r.key, Number(r.state));
    else view.waiting.set(r.key, [...(view.waiting.get(r.key) ?? []), { id: r.id, dueAt: r.due_at }]);
  }
  return view;
}

/** One statement: every run's state change, the started attempts' rows, and every event of the batch. */
async function applyClaims(
  tx: Queryable,
  workerId: string,
  writes: { id: string; action: "start" | "end" | "wait"; state: string | null; waitReason: string | null; jobId: string }[],
  events: EventRow[],
): Promise<Map<string, number>> {
  if (writes.length === 0 && events.length === 0) return new Map();
  const { rows } = await tx.query<{ id: string; lateness_ms: number }>(
    `WITH t AS (SELECT clock_timestamp() AS now),
     w AS (SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[]) AS w(id, action, state, wait_reason, job_id)),
     u AS (
       UPDATE runs r SET
              state = CASE w.action WHEN 'start' THEN 'running' WHEN 'end' THEN w.state ELSE r.state END,
              attempt = CASE WHEN w.action = 'start' THEN r.attempt + 1 ELSE r.attempt END,
              wait_reason = CASE WHEN w.action = 'wait' THEN w.wait_reason END,
              worker_id = CASE WHEN w.action = 'start' THEN $6 ELSE r.worker_id END,
              started_at = CASE WHEN w.action = 'start' THEN coalesce(r.started_at, t.now) ELSE r.started_at END,
              heartbeat_at = CASE WHEN w.action = 'start' THEN t.now ELSE r.heartbeat_at END,
              next_attempt_at = CASE WHEN w.action IN ('start', 'end') THEN NULL ELSE r.next_attempt_at END,
              lateness_ms = CASE WHEN w.action = 'start' THEN ${START_LATENESS_SQL} ELSE r.lateness_ms END,
              finished_at = CASE WHEN w.action = 'end' THEN t.now ELSE r.finished_at END,
              updated_at = t.now
         FROM w, t
        WHERE r.id = w.id
        RETURNING r.id, w.action, w.job_id, r.attempt, r.lateness_ms, r.max_attempts, t.now
     ),
     a AS (${attemptRowsSql("u WHERE action = 'start'", "$6")}),
     e AS (
       INSERT INTO run_events (run_id, type, attempt, worker_id, message, data)
       SELECT x.run_id, x.type, x.attempt, $6, x.message, x.data
         FROM unnest($7::uuid[], $8::text[], $9::int[], $10::text[], $11::jsonb[]) AS x(run_id, type, attempt, message, data)
       UNION ALL
       ${startedEventsSql("u WHERE action = 'start'", "$6")}
     )
     SELECT id, lateness_ms FROM u WHERE action = 'start'`,
    [
      writes.map((w) => w.id),
      writes.map((w) => w.action),
      writes.map((w) => w.state),
      writes.map((w) => w.waitReason),
      writes.map((w) => w.jobId),
      workerId,
      events.map((e) => e.runId),
      events.map((e) => e.type),
      events.map((e) => e.attempt),
      events.map((e) => e.message),
      events.map((e) => JSON.stringify(e.data)),
    ],
  );
  return new Map(rows.map((r) => [r.id, r.lateness_ms]));
}
