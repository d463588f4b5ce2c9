// A schedule as core/ and the API see it (camelCase, parsed trigger), and the one place that maps a
// `schedules` row to it. Every query that returns schedules selects SCHEDULE_COLUMNS.
import type { Queryable } from "../db/pool";
import { NotFoundError } from "../errors";
import { isPaused } from "../runs/paused";
import { describeTrigger } from "./describe-trigger";
import { triggerSchema, type Trigger } from "./trigger";
import type { MisfirePolicy, OverlapPolicy } from "./schedule-input";
import type { WebhookFormat } from "../alerts/webhook/webhook-format";
import type { CalendarUse } from "../calendars/calendar-types";
import type { FollowerRef, RunAfterLink } from "./run-after-input";

export interface Schedule {
  id: string;
  name: string;
  description: string;
  handler: string;
  payload: Record<string, unknown>;
  trigger: Trigger;
  /** Plain-words summary of the trigger, e.g. "at 09:00 on weekdays (Europe/Berlin)". */
  triggerDescription: string;
  timezone: string;
  /** False while paused (core/runs/paused.ts's rule). */
  enabled: boolean;
  /** Set while paused (core/runs/paused.ts's rule): who, why, since when, and the optional automatic resume time. */
  paused: { at: Date; by: string | null; reason: string | null; until: Date | null } | null;
  overlapPolicy: OverlapPolicy;
  misfirePolicy: MisfirePolicy;
  catchUpLimit: number;
  startingDeadlineSeconds: number;
  timeoutSeconds: number;
  graceSeconds: number;
  retryMaxAttempts: number;
  retryBaseSeconds: number;
  retryMaxSeconds: number;
  concurrencyGroup: string | null;
  /** The group's limit (shared by all schedules of the group); null without a group. */
  concurrencyLimit: number | null;
  /** The group's start-rate limit (shared by all schedules of the group); null without one. */
  startRateLimit?: { maxStarts: number; perSeconds: number } | null;
  startJitterMs: number;
  expectRecordsMin: number | null;
  latenessP95SloMs: number | null;
  latenessMaxMs: number | null;
  completionDeadlineSeconds: number | null;
  failureAlertThreshold: number | null;
  /** Days finished runs are kept; null = the global VIGIL_RETENTION_RUNS_DAYS. */
  retentionDays: number | null;
  webhookUrl: string | null;
  webhookFormat: WebhookFormat;
  /** Sorted, deduplicated (schedule-input.ts). */
  tags: string[];
  /** The business calendars it follows, in the order they apply, each with its policy (core/calendars/). */
  calendars?: CalendarUse[];
  /** The schedules it runs after, in order, each with its condition and mapping (core/runs/chain/chain-rules.ts). */
  after?: RunAfterLink[];
  /** Live schedules that run after this one. */
  followedBy?: FollowerRef[];
  /** How long an occurrence waits for its upstream occurrences, from its due time, before it is missed. */
  waitDeadlineSeconds: number;
  /** The maintenance window that paused it (maintenance.ts), while it holds. */
  maintenanceId: string | null;
  /** Set when created or last changed by applying a schedules file (as-code/apply-schedules.ts): that file's name. */
  managedBy: string | null;
  managedAt: Date | null;
  revision: number;
  /** No fires before / after these (core/schedules/fire-plan.ts); null = unbounded. */
  startsAt: Date | null;
  endsAt: Date | null;
  /** Planning cursor: every fire at or before it has an occurrence row. */
  plannedThrough: Date | null;
  createdBy: string | null;
  createdAt: Date;
  updatedAt: Date;
  deletedAt: Date | null;
  /** The owning team (core/teams/): its id and name. */
  teamId: string;
  team: string;
  /** The team's worker pool (core/queue/worker-pool.ts): its runs execute only on that pool's workers; null: none. */
  workerPool: string | null;
}

/**
 * The settings that say how a schedule's runs execute and are reported, not when it fires: the schedules document
 * carries them (core/schedules/as-code/schedules-document.ts) and the load forecast's plan key leaves them out
 * (core/load/count-due-fires.ts).
 */
export const RUN_SETTING_FIELDS = [
  "overlapPolicy",
  "misfirePolicy",
  "catchUpLimit",
  "startingDeadlineSeconds",
  "timeoutSeconds",
  "graceSeconds",
  "retryMaxAttempts",
  "retryBaseSeconds",
  "retryMaxSeconds",
  "concurrencyGroup",
  "concurrencyLimit",
  "startRateLimit",
  "startJitterMs",
  "expectRecordsMin",
  "latenessP95SloMs",
  "latenessMaxMs",
  "completionDeadlineSeconds",
  "failureAlertThreshold",
  "retentionDays",
  "webhookUrl",
  "webhookFormat",
] as const satisfies readonly (keyof Schedule)[];

export const SCHEDULE_COLUMNS = `s.id, s.name, s.description, s.handler, s.payload, s.trigger, s.timezone, s.enabled,
  s.paused_at, s.paused_by, s.pause_reason, s.paused_until, s.overlap_policy, s.misfire_policy, s.catch_up_limit,
  s.starting_deadline_seconds, s.timeout_seconds, s.grace_seconds, s.retry_max_attempts, s.retry_base_seconds,
  s.retry_max_seconds, s.concurrency_group,
  (SELECT g.max_running FROM concurrency_groups g WHERE g.name = s.concurrency_group) AS concurrency_limit,
  (SELECT jsonb_build_object('maxStarts', g.max_starts, 'perSeconds', g.per_seconds) FROM concurrency_groups g
    WHERE g.name = s.concurrency_group AND g.max_starts IS NOT NULL) AS start_rate_limit,
  s.start_jitter_ms, s.expect_records_min, s.lateness_p95_slo_ms, s.lateness_max_ms, s.completion_deadline_seconds,
  s.failure_alert_threshold, s.retention_days, s.webhook_url, s.webhook_format, s.tags, s.maintenance_id, s.managed_by, s.managed_at,
  s.revision, s.starts_at, s.ends_at, s.planned_through, s.created_by, s.created_at, s.updated_at,
  (SELECT jsonb_agg(jsonb_build_object('id', c.id, 'name', c.name, 'policy', sc.policy) ORDER BY sc.position)
     FROM schedule_calendars sc JOIN calendars c ON c.id = sc.calendar_id WHERE sc.schedule_id = s.id) AS calendars,
  (SELECT jsonb_agg(jsonb_build_object('id', u.id, 'name', u.name, 'condition', d.condition, 'mapping', d.mapping,
          'mappingTimezone', d.mapping_timezone) ORDER BY d.position)
     FROM schedule_dependencies d JOIN schedules u ON u.id = d.upstream_id WHERE d.schedule_id = s.id) AS run_after,
  (SELECT jsonb_agg(jsonb_build_object('id', f.id, 'name', f.name) ORDER BY f.name)
     FROM schedule_dependencies d JOIN schedules f ON f.id = d.schedule_id WHERE d.upstream_id = s.id AND f.deleted_at IS NULL) AS followed_by,
  s.after_wait_seconds,
  s.deleted_at, s.team_id, (SELECT t.name FROM teams t WHERE t.id = s.team_id) AS team_name,
  (SELECT t.worker_pool FROM teams t WHERE t.id = s.team_id) AS team_worker_pool, clock_timestamp() AS read_at`;

/** A row of SCHEDULE_COLUMNS. */
export interface ScheduleRow {
  id: string;
  name: string;
  description: string;
  handler: string;
  payload: Record<string, unknown> | null;
  /** jsonb as stored: validated on the way in (storedTrigger). */
  trigger: unknown;
  timezone: string;
  enabled: boolean;
  paused_at: Date | null;
  paused_by: string | null;
  pause_reason: string | null;
  paused_until: Date | null;
  overlap_policy: OverlapPolicy;
  misfire_policy: MisfirePolicy;
  catch_up_limit: number;
  starting_deadline_seconds: number;
  timeout_seconds: number;
  grace_seconds: number;
  retry_max_attempts: number;
  retry_base_seconds: number;
  retry_max_seconds: number;
  concurrency_group: string | null;
  concurrency_limit: number | null;
  start_jitter_ms: number;
  expect_records_min: number | null;
  lateness_p95_slo_ms: number | null;
  lateness_max_ms: number | null;
  completion_deadline_seconds: number | null;
  failure_alert_threshold: number | null;
  start_rate_limit: { maxStarts: number; perSeconds: number } | null;
  retention_days: number | null;
  webhook_url: string | null;
  webhook_format: WebhookFormat;
  tags: string[] | null;
  calendars: CalendarUse[] | null;
  run_after: RunAfterLink[] | null;
  followed_by: FollowerRef[] | null;
  after_wait_seconds: number;
  maintenance_id: string | null;
  managed_by: string | null;
  managed_at: Date | null;
  revision: number;
  starts_at: Date | null;
  ends_at: Date | null;
  planned_through: Date | null;
  created_by: string | null;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
  team_id: string;
  team_name: string;
  team_worker_pool: string | null;
  read_at: Date;
}

export function toSchedule(r: ScheduleRow): Schedule {
  const trigger = storedTrigger(r.trigger);
  // A pause whose `until` has passed is over for every reader, before the planner's auto-resume clears it.
  const paused = isPaused({ at: r.paused_at, until: r.paused_until }, r.read_at);
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    handler: r.handler,
    payload: r.payload ?? {},
    trigger,
    triggerDescription: describeTrigger(trigger),
    timezone: r.timezone,
    enabled: r.enabled || !paused,
    paused: paused && r.paused_at ? { at: r.paused_at, by: r.paused_by, reason: r.pause_reason, until: r.paused_until } : null,
    overlapPolicy: r.overlap_policy,
    misfirePolicy: r.misfire_policy,
    catchUpLimit: r.catch_up_limit,
    startingDeadlineSeconds: r.starting_deadline_seconds,
    timeoutSeconds: r.timeout_seconds,
    graceSeconds: r.grace_seconds,
    retryMaxAttempts: r.retry_max_attempts,
    retryBaseSeconds: r.retry_base_seconds,
    retryMaxSeconds: r.retry_max_seconds,
    concurrencyGroup: r.concurrency_group,
    concurrencyLimit: r.concurrency_limit ?? null,
    startRateLimit: r.start_rate_limit ?? null,
    startJitterMs: r.start_jitter_ms,
    expectRecordsMin: r.expect_records_min,
    latenessP95SloMs: r.lateness_p95_slo_ms,
    latenessMaxMs: r.lateness_max_ms,
    completionDeadlineSeconds: r.completion_deadline_seconds,
    failureAlertThreshold: r.failure_alert_threshold,
    retentionDays: r.retention_days ?? null,
    webhookUrl: r.webhook_url,
    webhookFormat: r.webhook_format,
    tags: r.tags ?? [],
    calendars: r.calendars ?? [],
    after: r.run_after ?? [],
    followedBy: r.followed_by ?? [],
    waitDeadlineSeconds: r.after_wait_seconds,
    maintenanceId: paused ? (r.maintenance_id ?? null) : null,
    managedBy: r.managed_by ?? null,
    managedAt: r.managed_at ?? null,
    revision: r.revision,
    startsAt: r.starts_at ?? null,
    endsAt: r.ends_at ?? null,
    plannedThrough: r.planned_through,
    createdBy: r.created_by,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    deletedAt: r.deleted_at,
    teamId: r.team_id,
    team: r.team_name,
    workerPool: r.team_worker_pool ?? null,
  };
}

/**
 * Stored triggers were validated (and defaults filled) on the way in. Re-validating on every read would redo the
 * cron "can it ever fire" search for each row of a 1,000-schedule list; only a defensive default is restored.
 */
export function storedTrigger(json: unknown): Trigger {
  const t = json as Trigger;
  if (t.kind === "cron" && !t.dst) return triggerSchema.parse(t);
  return t;
}

/** A live (not deleted) schedule, or null. */
export async function findSchedule(db: Queryable, id: string, opts: { lock?: boolean } = {}): Promise<Schedule | null> {
  if (!isUuid(id)) return null;
  const { rows } = await db.query<ScheduleRow>(
    `SELECT ${SCHEDULE_COLUMNS} FROM schedules s WHERE s.id = $1 AND s.deleted_at IS NULL${opts.lock ? " FOR UPDATE OF s" : ""}`,
    [id],
  );
  return rows[0] ? toSchedule(rows[0]) : null;
}

export async function getScheduleOrThrow(db: Queryable, id: string, opts: { lock?: boolean } = {}): Promise<Schedule> {
  const s = await findSchedule(db, id, opts);
  if (!s) throw new NotFoundError("Schedule", id);
  return s;
}

export function isUuid(id: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id);
}
