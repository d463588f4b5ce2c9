// Trigger now: one extra run of the schedule, kind 'manual', due at once, with its own idempotency key
// (manual:<scheduleId>:<runId>). It is enqueued also while the schedule is paused — an operator asked for it
// explicitly; the overlap policy still applies when it starts. Given a pg-boss client (the API route passes the
// console's), the trigger's own transaction enqueues it (insert-triggered-run.ts: the run, its events, its job and
// the dispatchers' wake-up), so it starts within milliseconds; without one, the planners enqueue it (woken by NOTIFY).
// The operator says why (required, audited) and may override the payload for this one run (checked against
// the handler's schema like a schedule's payload). A client that may retry the POST sends an Idempotency-Key:
// the key is kept per schedule with a hash of the request, so a repeat returns the run the first request
// created (replayed: true) and the same key with a different request is refused.
import { findSchedulePool } from "../queue/worker-pool";
import crypto from "node:crypto";
import type { PgBoss } from "pg-boss";
import { z } from "zod";
import type { Actor } from "../auth/roles";
import { recordAudit } from "../audit/record-audit";
import { inTransaction, dbNow, getHotPathPool, getPool, type Queryable } from "../db/pool";
import { ValidationError } from "../errors";
import { validateHandlerPayload } from "../handlers/handler-registry";
import { assertScheduleMayUseSecrets } from "../secrets/check-secret-access";
import { overrideRunPayload } from "../runs/plan/override-run-payload";
import { insertOccurrences, occurrenceKey } from "../runs/plan/plan-occurrences";
import { insertTriggeredRun, triggerRunInOneStatement } from "../runs/plan/insert-triggered-run";
import { notifyPlanner } from "./notify-planner";
import type { ActionResult } from "./pause-schedule";
import { getScheduleOrThrow } from "./schedule-record";
import { assertMayRunSchedules } from "../auth/program-permission";
import { MAX_PAYLOAD_BYTES } from "./schedule-input";

export const MAX_CLIENT_KEY_LENGTH = 200;

export const triggerNowInputSchema = z.strictObject({
  dryRun: z.boolean({ error: "dryRun must be true or false" }).optional(),
  reason: z
    .string({ error: "Say why you trigger this run (reason)" })
    .trim()
    .min(1, { error: "Say why you trigger this run (reason)" })
    .max(500, { error: "Reason must be at most 500 characters" }),
  /** This run's payload instead of the schedule's (validated against the handler's schema). */
  payload: z.record(z.string(), z.unknown(), { error: "payload must be a JSON object" }).optional(),
});

export type TriggerNowInput = z.output<typeof triggerNowInputSchema>;

export interface TriggerNowResult extends ActionResult {
  /** The new run (null on a dry run); with replayed, the run an earlier request with the same key created. */
  runId: string | null;
  /** True when an earlier request with the same Idempotency-Key already created the run: nothing new happened. */
  replayed: boolean;
}

/** `v` is parsed by triggerNowInputSchema (the API route's body schema); the payload override is checked here. */
export async function triggerNow(
  id: string,
  v: TriggerNowInput,
  actor: Actor,
  opts: { db?: Queryable; idempotencyKey?: string | null; boss?: PgBoss | null } = {},
): Promise<TriggerNowResult> {
  const dryRun = v.dryRun ?? false;
  const clientKey = checkClientKey(opts.idempotencyKey);
  await assertMayRunSchedules(opts.db ?? getPool(), actor, [id]);
  if (opts.boss && !opts.db && !dryRun && !clientKey && v.payload === undefined) {
    const done = await triggerInOneStatement(id, v.reason, actor, opts.boss);
    if (done) return done;
  }
  return inTransaction({ tx: opts.db, dryRun }, async (tx) => {
    const schedule = await getScheduleOrThrow(tx, id);
    const requestHash = hashRequest(v.reason, v.payload);
    const runId = crypto.randomUUID();
    if (clientKey && !dryRun) {
      const earlier = await claimClientKey(tx, schedule.id, clientKey, requestHash, runId);
      if (earlier) {
        if (earlier.requestHash !== requestHash) {
          throw new ValidationError(
            `Idempotency-Key "${clientKey}" was already used for a different trigger request of this schedule (run ${earlier.runId}). ` +
              "Send the same reason and payload to get that run back, or use a new key for a new run.",
            { "Idempotency-Key": "already used with a different request body" },
            "idempotency_key_reused",
          );
        }
        const { rows } = await tx.query<{ planned_at: Date }>(`SELECT planned_at FROM runs WHERE id = $1`, [earlier.runId]);
        return { dryRun, count: 0, plannedAt: rows[0] ? [rows[0].planned_at.toISOString()] : [], runId: earlier.runId, replayed: true };
      }
    }
    const payload = v.payload === undefined ? undefined : await checkOverride(tx, schedule.handler, v.payload);
    if (payload !== undefined) await assertScheduleMayUseSecrets(tx, schedule, payload);
    if (payload !== undefined) await assertMayRunSchedules(tx, actor, [schedule.id], { payload });
    const key = manualKey(schedule.id, runId);
    const planned = {
      message: `triggered by ${actor.label}: ${v.reason}${payload !== undefined ? " (payload overridden)" : ""}`,
      data: { actor: actor.label, reason: v.reason, payloadOverride: payload !== undefined, ...(clientKey ? { clientKey } : {}) },
    };
    let now: Date;
    if (opts.boss) {
      now = (await insertTriggeredRun(tx, opts.boss, { id: runId, scheduleId: schedule.id, idempotencyKey: key, payload, ...planned })).now;
    } else {
      now = await dbNow(tx);
      await insertOccurrences(tx, schedule.id, "manual", [{ id: runId, plannedAt: now, dueAt: now, idempotencyKey: key }], planned);
      if (payload !== undefined) await overrideRunPayload(tx, runId, payload);
    }
    await recordAudit(tx, {
      actor,
      action: "schedule.trigger",
      targetType: "schedule",
      targetId: schedule.id,
      after: {
        runId,
        plannedAt: now.toISOString(),
        ...(payload !== undefined ? { payload } : {}),
        ...(clientKey ? { idempotencyKey: clientKey } : {}),
      },
      reason: v.reason,
    });
    if (!opts.boss) await notifyPlanner(tx, schedule.id);
    return { dryRun, count: 1, plannedAt: [now.toISOString()], runId: dryRun ? null : runId, replayed: false };
  });
}

/** What the one-statement trigger needs of a schedule; the statement checks it still holds. */
interface TriggerTarget {
  id: string;
  handler: string;
  timeoutSeconds: number;
  graceSeconds: number;
  /** Its team's worker pool (core/queue/worker-pool.ts): the queue its job goes to. */
  pool: string | null;
}

/**
 * Schedules triggered lately, so a trigger skips the schedule read: the statement refuses to run on a stale entry
 * (insert-triggered-run.ts), which is then dropped and read again.
 */
const recentTargets = new Map<string, TriggerTarget>();
const RECENT_TARGETS_MAX = 1000;

/**
 * The common trigger (no Idempotency-Key, no payload override, not a dry run) in one round trip and one commit
 * (two for a schedule not triggered lately: the schedule read first): insert-triggered-run.ts's one statement.
 * Null when the schedule changed under it twice in a row: the caller then takes the transaction path.
 */
async function triggerInOneStatement(id: string, reason: string, actor: Actor, boss: PgBoss): Promise<TriggerNowResult | null> {
  for (let attempt = 0; attempt < 2; attempt++) {
    let target = recentTargets.get(id);
    if (!target) {
      const s = await getScheduleOrThrow(getPool(), id);
      target = {
        id: s.id,
        handler: s.handler,
        timeoutSeconds: s.timeoutSeconds,
        graceSeconds: s.graceSeconds,
        pool: await findSchedulePool(getPool(), s.id),
      };
    }
    const runId = crypto.randomUUID();
    const run = await triggerRunInOneStatement(getHotPathPool(), boss, {
      id: runId,
      schedule: target,
      idempotencyKey: manualKey(target.id, runId),
      message: `triggered by ${actor.label}: ${reason}`,
      data: { actor: actor.label, reason, payloadOverride: false },
      // The row the transaction path writes; the statement adds after.plannedAt (the run's planned_at).
      audit: { actor, action: "schedule.trigger", targetType: "schedule", targetId: target.id, after: { runId }, reason },
    });
    recentTargets.delete(id);
    if (!run) continue;
    if (recentTargets.size >= RECENT_TARGETS_MAX) recentTargets.delete(recentTargets.keys().next().value!);
    recentTargets.set(id, target);
    return { dryRun: false, count: 1, plannedAt: [run.now.toISOString()], runId, replayed: false };
  }
  return null;
}

/** A manual run's key names its run, not a time (core/runs/plan/plan-occurrences.ts occurrenceKey). */
function manualKey(scheduleId: string, runId: string): string {
  return occurrenceKey("manual", scheduleId, new Date(0), runId);
}

function checkClientKey(key: string | null | undefined): string | null {
  if (key === null || key === undefined) return null;
  const k = key.trim();
  if (k.length === 0 || k.length > MAX_CLIENT_KEY_LENGTH || !/^[\x21-\x7e]+$/.test(k)) {
    throw new ValidationError(`Idempotency-Key must be 1..${MAX_CLIENT_KEY_LENGTH} visible ASCII characters.`, {
      "Idempotency-Key": `1..${MAX_CLIENT_KEY_LENGTH} visible ASCII characters`,
    });
  }
  return k;
}

/** Canonical JSON (sorted keys) so the same request written in another key order hashes the same. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object") {
    return `{${Object.keys(value as Record<string, unknown>)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(value ?? null);
}

function hashRequest(reason: string, payload: unknown): string {
  return crypto
    .createHash("sha256")
    .update(canonical({ reason, payload: payload ?? null }))
    .digest("hex");
}

/**
 * Records the key for the run about to be created, or returns the earlier request's. A concurrent request with
 * the same key blocks on the first one's uncommitted row and then sees it (or inserts, if the first rolled back).
 */
async function claimClientKey(tx: Queryable, scheduleId: string, key: string, requestHash: string, runId: string) {
  const ins = await tx.query(
    `INSERT INTO trigger_requests (schedule_id, client_key, request_hash, run_id) VALUES ($1, $2, $3, $4)
     ON CONFLICT (schedule_id, client_key) DO NOTHING`,
    [scheduleId, key, requestHash, runId],
  );
  if (ins.rowCount === 1) return null;
  const { rows } = await tx.query<{ request_hash: string; run_id: string }>(
    `SELECT request_hash, run_id FROM trigger_requests WHERE schedule_id = $1 AND client_key = $2`,
    [scheduleId, key],
  );
  return { requestHash: rows[0]!.request_hash, runId: rows[0]!.run_id };
}

async function checkOverride(tx: Queryable, handler: string, payload: Record<string, unknown>): Promise<unknown> {
  const bytes = Buffer.byteLength(JSON.stringify(payload));
  if (bytes > MAX_PAYLOAD_BYTES) {
    throw new ValidationError("The payload is too large.", {
      payload: `Payload is ${Math.ceil(bytes / 1024)} KiB; the limit is ${MAX_PAYLOAD_BYTES / 1024} KiB.`,
    });
  }
  return validateHandlerPayload(tx, handler, payload);
}
