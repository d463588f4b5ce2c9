// Editing a schedule. The editor sends the revision it saw; a stale one is refused (409 stale_revision) so two
// operators never silently overwrite each other. The merged result is validated like a new schedule, the
// revision goes up, not-started runs follow the edit (replan-schedule.ts), and the change is audited with its
// before and after — all in one transaction.
import { resolveTeamForCreate } from "../teams/resolve-team";
import { assertTeamRole } from "../teams/team-access";
import { assertReferencesInTeam } from "../teams/cross-team-references";
import type { Actor } from "../auth/roles";
import { recordAudit, type AuditInput } from "../audit/record-audit";
import { assertMayRunSchedules, assertMayUseHandlers } from "../auth/program-permission";
import { inTransaction, dbNow, type Queryable } from "../db/pool";
import { ConflictError, ValidationError } from "../errors";
import { auditView, nameTakenOr, upsertConcurrencyGroup } from "./create-schedule";
import { notifyPlanner } from "./notify-planner";
import { pauseInTransaction } from "./pause-schedule";
import { replanAfterEdit } from "./replan-schedule";
import { resumeInTransaction } from "./resume-schedule";
import { datesProblem, type ScheduleUpdate } from "./schedule-input";
import { getScheduleOrThrow, type Schedule } from "./schedule-record";
import { assertOnceInFuture } from "./trigger";
import { checkPayload } from "./validate-schedule-input";
import { loadScheduleCalendars, type CalendarLink } from "../calendars/calendar-rules";
import { firePlanOf, planFires, type PlannedFire } from "./fire-plan";
import { assertScheduleMayUseSecrets } from "../secrets/check-secret-access";
import { restoreMaskedValues } from "../secrets/mask-credentials";
import { resolveScheduleCalendars, writeScheduleCalendars } from "../calendars/schedule-calendar-links";
import { resolveRunAfter, writeRunAfter } from "./schedule-dependencies";
import type { RunAfterLink } from "./run-after-input";

const COLUMNS: Partial<Record<keyof ScheduleUpdate, string>> = {
  team: "team_id",
  name: "name",
  description: "description",
  handler: "handler",
  payload: "payload",
  trigger: "trigger",
  overlapPolicy: "overlap_policy",
  misfirePolicy: "misfire_policy",
  catchUpLimit: "catch_up_limit",
  startingDeadlineSeconds: "starting_deadline_seconds",
  timeoutSeconds: "timeout_seconds",
  graceSeconds: "grace_seconds",
  retryMaxAttempts: "retry_max_attempts",
  retryBaseSeconds: "retry_base_seconds",
  retryMaxSeconds: "retry_max_seconds",
  concurrencyGroup: "concurrency_group",
  startJitterMs: "start_jitter_ms",
  expectRecordsMin: "expect_records_min",
  latenessP95SloMs: "lateness_p95_slo_ms",
  latenessMaxMs: "lateness_max_ms",
  completionDeadlineSeconds: "completion_deadline_seconds",
  failureAlertThreshold: "failure_alert_threshold",
  retentionDays: "retention_days",
  webhookUrl: "webhook_url",
  webhookFormat: "webhook_format",
  tags: "tags",
  startsAt: "starts_at",
  endsAt: "ends_at",
  waitDeadlineSeconds: "after_wait_seconds",
};
const JSON_FIELDS = new Set(["payload", "trigger"]);
/** Fields that change which fires a schedule has or what becomes of them: an edit of one re-plans its runs. */
export const REPLAN_FIELDS = ["trigger", "startsAt", "endsAt", "calendars"] as const;
const SNAPSHOT_FIELDS = ["handler", "payload", "timeoutSeconds", "graceSeconds", "retryMaxAttempts", "concurrencyGroup"] as const;

/**
 * `patch` is parsed by scheduleUpdateSchema (the API route's body schema); the checks that need the stored schedule follow.
 * `auditInto`: the edit's audit row is handed to the caller instead of written, for an action that edits several
 * schedules in one transaction and must write all its audit rows after its last schedule and run lock
 * (record-audit.ts's lock order).
 */
export async function updateSchedule(
  id: string,
  patch: ScheduleUpdate,
  actor: Actor,
  opts: { db?: Queryable; auditInto?: AuditInput[] } = {},
): Promise<Schedule> {
  return inTransaction({ tx: opts.db }, async (tx) => (await applyEdit(tx, id, patch, actor, opts.auditInto)).schedule);
}

/** The next fires an edit's preview shows on each side. */
export const PREVIEW_FIRES = 10;

/** What an edit would change, written nowhere (PATCH …?dryRun / body dryRun: true; the console's confirm step). */
export interface EditPreview {
  dryRun: true;
  /** Fields the edit changes (API names). */
  changed: string[];
  /** Whether the plan changes (a REPLAN_FIELDS field changed): before/after differ only then. */
  replans: boolean;
  /** The next fires from now under the stored schedule and under the edited one, each with its fate. */
  before: PlannedFire[];
  after: PlannedFire[];
  /** Already planned, not started rows the edit would cancel (superseded by the new plan). */
  superseded: { id: string; plannedAt: Date; nominalAt: Date; state: string }[];
}

/** The edit done in a transaction that is rolled back: exactly what saving would do, as an answer. */
export async function previewScheduleEdit(
  id: string,
  patch: ScheduleUpdate,
  actor: Actor,
  opts: { db?: Queryable } = {},
): Promise<EditPreview> {
  return inTransaction({ tx: opts.db, dryRun: true }, async (tx) => {
    const stored = await getScheduleOrThrow(tx, id, { lock: true });
    const linksBefore = await loadScheduleCalendars(tx, [id]);
    const edit = await applyEdit(tx, id, patch, actor);
    const linksAfter = await loadScheduleCalendars(tx, [id]);
    const now = await dbNow(tx);
    const range = { from: now, until: new Date(now.getTime() + PREVIEW_HORIZON_MS) };
    const next = (s: Schedule, links: Map<string, CalendarLink[]>) =>
      planFires(firePlanOf(s, links.get(id) ?? []), range, { limit: PREVIEW_FIRES }).fires.slice(0, PREVIEW_FIRES);
    return {
      dryRun: true,
      changed: edit.changed,
      replans: REPLAN_FIELDS.some((f) => edit.changed.includes(f)),
      before: next(stored, linksBefore),
      after: next(edit.schedule, linksAfter),
      superseded: edit.superseded,
    };
  });
}

/** How far ahead a preview looks for the next fires (a yearly schedule still shows one). */
const PREVIEW_HORIZON_MS = 400 * 86_400_000;

interface EditOutcome {
  schedule: Schedule;
  changed: string[];
  superseded: EditPreview["superseded"];
}

async function applyEdit(tx: Queryable, id: string, patch: ScheduleUpdate, actor: Actor, auditInto?: AuditInput[]): Promise<EditOutcome> {
  const before = await getScheduleOrThrow(tx, id, { lock: true });
  // Any edit of a program schedule (its trigger decides when the program runs), or a switch to such a handler;
  // only disabling it is open to everyone who may pause it.
  const onlyDisables = Object.entries(patch).every(
    ([k, v]) => k === "revision" || k === "dryRun" || v === undefined || (k === "enabled" && v === false),
  );
  if (!onlyDisables) await assertMayUseHandlers(tx, actor, [before.handler, ...(patch.handler ? [patch.handler] : [])]);
  if (patch.revision !== before.revision) {
    throw new ConflictError(
      `Schedule ${before.name} was changed since you loaded it (you edited revision ${patch.revision}, it is now at ${before.revision}); reload it and apply your change again.`,
      "stale_revision",
    );
  }
  // Moving a schedule between teams takes an admin of both (resolveTeamForCreate checks the one it goes to).
  if (patch.team !== undefined) {
    const target = await resolveTeamForCreate(tx, actor, patch.team, "admin");
    if (target.id !== before.teamId) assertTeamRole(actor, before.teamId, "admin", "Schedule", id);
    patch.team = target.id;
  }
  // A value shown masked (core/secrets/mask-credentials.ts) and sent back as is means "unchanged".
  if (patch.payload !== undefined) patch.payload = restoreMaskedValues(patch.payload, before.payload) as typeof patch.payload;
  const changed = changedFields(before, patch);
  // Calendars live in schedule_calendars, not a column: compared as (calendar, policy) in order.
  const calendars = patch.calendars === undefined ? undefined : await resolveScheduleCalendars(tx, patch.calendars);
  const linkKey = (links: readonly { id: string; policy: string }[] | undefined) =>
    (links ?? []).map((l) => `${l.id}:${l.policy}`).join(",");
  if (calendars && linkKey(calendars) !== linkKey(before.calendars)) changed.add("calendars");
  // Run-after links live in schedule_dependencies: compared as (upstream, condition, mapping, zone) in order.
  const runAfter = patch.after === undefined ? undefined : await resolveRunAfter(tx, id, patch.after);
  const afterKey = (links: readonly RunAfterLink[] | undefined) =>
    (links ?? []).map((l) => `${l.id}:${l.condition}:${l.mapping}:${l.mappingTimezone ?? ""}`).join(",");
  if (runAfter && afterKey(runAfter) !== afterKey(before.after)) changed.add("after");
  if (changed.has("handler") || changed.has("payload")) {
    patch.payload = await checkPayload(tx, patch.handler ?? before.handler, patch.payload ?? before.payload);
    if (!sameJson(patch.payload, before.payload)) changed.add("payload");
  }
  const base = patch.retryBaseSeconds ?? before.retryBaseSeconds;
  const max = patch.retryMaxSeconds ?? before.retryMaxSeconds;
  if (max < base) {
    const message = `Retry max delay (${max} s) must be at least the base delay (${base} s)`;
    throw new ValidationError(message, { retryMaxSeconds: message });
  }
  if (changed.has("trigger")) assertOnceInFuture(patch.trigger!, await dbNow(tx));
  const dates = datesProblem(
    patch.startsAt !== undefined ? patch.startsAt : before.startsAt,
    patch.endsAt !== undefined ? patch.endsAt : before.endsAt,
  );
  if (dates) throw new ValidationError(dates, { endsAt: dates });
  if (patch.concurrencyGroup !== undefined || patch.concurrencyLimit !== undefined || patch.startRateLimit !== undefined) {
    await upsertConcurrencyGroup(
      tx,
      patch.concurrencyGroup ?? before.concurrencyGroup,
      patch.concurrencyLimit,
      patch.startRateLimit,
      patch.team ?? before.teamId,
    );
  }
  await writeChanges(tx, before, patch, changed);
  if (calendars && changed.has("calendars")) await writeScheduleCalendars(tx, id, calendars);
  if (runAfter && changed.has("after")) await writeRunAfter(tx, id, runAfter);
  const after = await getScheduleOrThrow(tx, id);
  if (!onlyDisables) await assertMayRunSchedules(tx, actor, [id]);
  if (["team", "payload", "calendars", "concurrencyGroup", "after"].some((f) => changed.has(f))) await assertReferencesInTeam(tx, after);
  // A rename, a tag or handler change can lose a secret's permission as surely as a new reference.
  if (["name", "tags", "handler", "payload"].some((f) => changed.has(f))) await assertScheduleMayUseSecrets(tx, after, after.payload);
  const rateChanged = !sameJson(after.startRateLimit ?? null, before.startRateLimit ?? null);
  const limitChanged = after.concurrencyLimit !== before.concurrencyLimit || rateChanged;
  const enabledChange = patch.enabled !== undefined && patch.enabled === Boolean(before.paused);
  if (changed.size === 0 && !limitChanged && !enabledChange) return { schedule: before, changed: [], superseded: [] };

  let superseded: EditOutcome["superseded"] = [];
  if (changed.size > 0 || limitChanged) {
    ({ superseded } = await replanAfterEdit(tx, before, after, {
      triggerChanged: REPLAN_FIELDS.some((f) => changed.has(f)),
      planFields: REPLAN_FIELDS.filter((f) => changed.has(f)),
      snapshotChanged: SNAPSHOT_FIELDS.some((f) => changed.has(f)),
      jitterChanged: changed.has("startJitterMs"),
    }));
    const fields = [
      ...changed,
      ...(after.concurrencyLimit !== before.concurrencyLimit ? ["concurrencyLimit"] : []),
      ...(rateChanged ? ["startRateLimit"] : []),
    ];
    const pick = (s: Schedule) => Object.fromEntries(fields.map((f) => [f, auditView(s)[f]]));
    const audit: AuditInput = {
      actor,
      action: "schedule.edit",
      targetType: "schedule",
      targetId: id,
      before: { ...pick(before), revision: before.revision },
      after: { ...pick(after), revision: after.revision },
    };
    if (auditInto) auditInto.push(audit);
    else await recordAudit(tx, audit);
  }
  if (enabledChange && patch.enabled === false) await pauseInTransaction(tx, after, { reason: "disabled in an edit", until: null }, actor);
  if (enabledChange && patch.enabled === true) await resumeInTransaction(tx, after, actor);
  await notifyPlanner(tx, id);
  return { schedule: await getScheduleOrThrow(tx, id), changed: [...changed], superseded };
}

function changedFields(before: Schedule, patch: ScheduleUpdate): Set<string> {
  const changed = new Set<string>();
  for (const key of Object.keys(COLUMNS) as (keyof ScheduleUpdate)[]) {
    const next = patch[key];
    if (next === undefined) continue;
    // The patch names the team it moves to by id (resolved in applyEdit).
    const prev = key === "team" ? before.teamId : (before as unknown as Record<string, unknown>)[key];
    if (!sameJson(next ?? null, prev ?? null)) changed.add(key);
  }
  return changed;
}

async function writeChanges(tx: Queryable, before: Schedule, patch: ScheduleUpdate, changed: Set<string>): Promise<void> {
  if (changed.size === 0) return;
  const sets: string[] = [];
  const values: unknown[] = [before.id];
  for (const key of changed) {
    const column = COLUMNS[key as keyof ScheduleUpdate];
    if (!column) continue;
    const value = patch[key as keyof ScheduleUpdate];
    values.push(JSON_FIELDS.has(key) ? JSON.stringify(value) : (value ?? null));
    sets.push(`${column} = $${values.length}`);
  }
  if (changed.has("trigger")) {
    const t = patch.trigger!;
    values.push(t.kind === "cron" ? t.timezone : "UTC");
    sets.push(`timezone = $${values.length}`);
  }
  try {
    await tx.query(
      `UPDATE schedules SET ${[...sets, "revision = revision + 1", "updated_at = clock_timestamp()"].join(", ")} WHERE id = $1`,
      values,
    );
  } catch (err) {
    throw nameTakenOr(err, patch.name ?? before.name);
  }
}

/** Equal as JSON values, whatever the key order (jsonb returns keys in its own order). */
export function sameJson(a: unknown, b: unknown): boolean {
  return stableJson(a) === stableJson(b);
}

function stableJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stableJson).join(",")}]`;
  if (v && typeof v === "object" && !(v instanceof Date)) {
    const entries = Object.entries(v as Record<string, unknown>)
      .filter(([, x]) => x !== undefined)
      .sort(([a], [b]) => a.localeCompare(b));
    return `{${entries.map(([k, x]) => `${JSON.stringify(k)}:${stableJson(x)}`).join(",")}}`;
  }
  return JSON.stringify(v instanceof Date ? v.toISOString() : v);
}
