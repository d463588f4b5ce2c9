// Creating a schedule: validate everything (fields, trigger, the handler's payload, a one-off's time against the
// database clock), store it with its planning cursor at the creation instant (fires strictly after it are
// planned), upsert its concurrency group, audit and wake the planners — all in one transaction.
import type { Actor } from "../auth/roles";
import { recordAudit } from "../audit/record-audit";
import { assertMayRunSchedules, assertMayUseHandlers } from "../auth/program-permission";
import { inTransaction, dbNow, type Queryable } from "../db/pool";
import { ConflictError, ValidationError } from "../errors";
import { syncRecentStarts } from "../groups/sync-recent-starts";
import { notifyPlanner } from "./notify-planner";
import { scheduleInputSchema, type ScheduleInput } from "./schedule-input";
import { getScheduleOrThrow, type Schedule } from "./schedule-record";
import { assertOnceInFuture } from "./trigger";
import { checkPayload, parseOrThrow } from "./validate-schedule-input";
import { assertScheduleMayUseSecrets } from "../secrets/check-secret-access";
import { resolveScheduleCalendars, writeScheduleCalendars } from "../calendars/schedule-calendar-links";
import { resolveRunAfter, runAfterReferences, writeRunAfter } from "./schedule-dependencies";
import { DEFAULT_TEAM_ID } from "../teams/team-roles";
import { resolveTeamForCreate } from "../teams/resolve-team";
import { assertReferencesInTeam } from "../teams/cross-team-references";

/** Unparsed input (written in code: tests, benches, seeds): its defaults are filled and its fields checked here. */
export async function createSchedule(input: unknown, actor: Actor, opts: { db?: Queryable } = {}): Promise<Schedule> {
  return createParsedSchedule(parseOrThrow(scheduleInputSchema, input), actor, opts);
}

/** Input already parsed by scheduleInputSchema (the API route's body schema): the checks that need the database follow. */
export async function createParsedSchedule(v: ScheduleInput, actor: Actor, opts: { db?: Queryable } = {}): Promise<Schedule> {
  return inTransaction({ tx: opts.db }, async (tx) => {
    const team = await resolveTeamForCreate(tx, actor, v.team);
    await assertMayUseHandlers(tx, actor, [v.handler]);
    v.payload = await checkPayload(tx, v.handler, v.payload);
    assertOnceInFuture(v.trigger, await dbNow(tx));
    await upsertConcurrencyGroup(tx, v.concurrencyGroup, v.concurrencyLimit, v.startRateLimit, team.id);
    const calendars = await resolveScheduleCalendars(tx, v.calendars);
    const id = await insertSchedule(tx, v, actor, team.id);
    // Its team's code execution, the actor's role there and the team's command allow-list, read from the stored row.
    await assertMayRunSchedules(tx, actor, [id]);
    await writeScheduleCalendars(tx, id, calendars);
    await writeRunAfter(tx, id, await resolveRunAfter(tx, id, v.after));
    const created = await getScheduleOrThrow(tx, id);
    await assertReferencesInTeam(tx, created);
    await assertScheduleMayUseSecrets(tx, created, created.payload);
    await recordAudit(tx, { actor, action: "schedule.create", targetType: "schedule", targetId: id, after: auditView(created) });
    await notifyPlanner(tx, id);
    return created;
  });
}

async function insertSchedule(tx: Queryable, v: ScheduleInput, actor: Actor, teamId: string): Promise<string> {
  try {
    const { rows } = await tx.query<{ id: string }>(
      `INSERT INTO schedules (name, description, handler, payload, trigger, timezone, enabled, paused_at, paused_by, pause_reason,
         overlap_policy, misfire_policy, catch_up_limit, starting_deadline_seconds, timeout_seconds, grace_seconds,
         retry_max_attempts, retry_base_seconds, retry_max_seconds, concurrency_group, start_jitter_ms, expect_records_min,
         lateness_p95_slo_ms, lateness_max_ms, completion_deadline_seconds, failure_alert_threshold, webhook_url,
         planned_through, created_by, webhook_format, tags, retention_days, starts_at, ends_at, after_wait_seconds, team_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, CASE WHEN $7 THEN NULL ELSE now() END, CASE WHEN $7 THEN NULL ELSE $26 END,
         CASE WHEN $7 THEN NULL ELSE 'created disabled' END,
         $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, now(), $25, $27, $28, $29, $30, $31, $32, $33)
       RETURNING id`,
      [
        v.name,
        v.description,
        v.handler,
        JSON.stringify(v.payload),
        JSON.stringify(v.trigger),
        v.trigger.kind === "cron" ? v.trigger.timezone : "UTC",
        v.enabled,
        v.overlapPolicy,
        v.misfirePolicy,
        v.catchUpLimit,
        v.startingDeadlineSeconds,
        v.timeoutSeconds,
        v.graceSeconds,
        v.retryMaxAttempts,
        v.retryBaseSeconds,
        v.retryMaxSeconds,
        v.concurrencyGroup,
        v.startJitterMs,
        v.expectRecordsMin ?? null,
        v.latenessP95SloMs ?? null,
        v.latenessMaxMs ?? null,
        v.completionDeadlineSeconds ?? null,
        v.failureAlertThreshold ?? null,
        v.webhookUrl ?? null,
        actor.label,
        actor.label,
        v.webhookFormat,
        v.tags,
        v.retentionDays ?? null,
        v.startsAt ?? null,
        v.endsAt ?? null,
        v.waitDeadlineSeconds,
        teamId,
      ],
    );
    return rows[0]!.id;
  } catch (err) {
    throw nameTakenOr(err, v.name);
  }
}

/** A unique-name violation becomes a 409 naming the field; anything else is rethrown as is. */
export function nameTakenOr(err: unknown, name: string): unknown {
  const e = err as { code?: string; constraint?: string };
  if (e.code === "23505" && e.constraint === "schedules_name_live_key") {
    const message = `A schedule named "${name}" already exists; choose another name or edit that schedule.`;
    return new ConflictError(message, "name_taken", { name: message });
  }
  return err;
}

/**
 * The group row holds the limits every schedule of the group shares; a new group without a limit gets 1.
 * startRate: undefined keeps the group's start-rate limit, null removes it.
 */
export async function upsertConcurrencyGroup(
  tx: Queryable,
  group: string | null | undefined,
  limit: number | undefined,
  startRate?: { maxStarts: number; perSeconds: number } | null,
  /** The team a group created here belongs to (the schedule's); an existing group keeps its own. */
  teamId?: string,
): Promise<void> {
  if (!group) {
    if (startRate) {
      const message = "A start-rate limit belongs to a concurrency group: name the group it limits";
      throw new ValidationError(message, { startRateLimit: message });
    }
    return;
  }
  const { rows: before } = await tx.query<{ max_starts: number | null; per_seconds: number | null }>(
    `SELECT max_starts, per_seconds FROM concurrency_groups WHERE name = $1 FOR UPDATE`,
    [group],
  );
  await tx.query(
    `INSERT INTO concurrency_groups (name, max_running, max_starts, per_seconds, team_id)
     VALUES ($1, coalesce($2::int, 1), $4::int, $5::int, coalesce($6::uuid, '${DEFAULT_TEAM_ID}'))
     ON CONFLICT (name) DO UPDATE SET max_running = coalesce($2::int, concurrency_groups.max_running),
            max_starts = CASE WHEN $3 THEN $4::int ELSE concurrency_groups.max_starts END,
            per_seconds = CASE WHEN $3 THEN $5::int ELSE concurrency_groups.per_seconds END`,
    [group, limit ?? null, startRate !== undefined, startRate?.maxStarts ?? null, startRate?.perSeconds ?? null, teamId ?? null],
  );
  const was = before[0] ?? { max_starts: null, per_seconds: null };
  const changed =
    startRate !== undefined && (was.max_starts !== (startRate?.maxStarts ?? null) || was.per_seconds !== (startRate?.perSeconds ?? null));
  if (changed) await syncRecentStarts(tx, group);
}

/** What the audit trail records of a schedule: its settings, not its bookkeeping. */
export function auditView(s: Schedule): Record<string, unknown> {
  return {
    team: s.team,
    name: s.name,
    description: s.description,
    handler: s.handler,
    payload: s.payload,
    trigger: s.trigger,
    enabled: s.enabled,
    overlapPolicy: s.overlapPolicy,
    misfirePolicy: s.misfirePolicy,
    catchUpLimit: s.catchUpLimit,
    startingDeadlineSeconds: s.startingDeadlineSeconds,
    timeoutSeconds: s.timeoutSeconds,
    graceSeconds: s.graceSeconds,
    retryMaxAttempts: s.retryMaxAttempts,
    retryBaseSeconds: s.retryBaseSeconds,
    retryMaxSeconds: s.retryMaxSeconds,
    concurrencyGroup: s.concurrencyGroup,
    concurrencyLimit: s.concurrencyLimit,
    startRateLimit: s.startRateLimit,
    startJitterMs: s.startJitterMs,
    expectRecordsMin: s.expectRecordsMin,
    latenessP95SloMs: s.latenessP95SloMs,
    latenessMaxMs: s.latenessMaxMs,
    completionDeadlineSeconds: s.completionDeadlineSeconds,
    failureAlertThreshold: s.failureAlertThreshold,
    retentionDays: s.retentionDays,
    webhookUrl: s.webhookUrl,
    webhookFormat: s.webhookFormat,
    tags: s.tags,
    startsAt: s.startsAt?.toISOString() ?? null,
    endsAt: s.endsAt?.toISOString() ?? null,
    calendars: (s.calendars ?? []).map((c) => ({ name: c.name, policy: c.policy })),
    after: runAfterReferences(s.after),
    waitDeadlineSeconds: s.waitDeadlineSeconds,
    revision: s.revision,
  };
}
