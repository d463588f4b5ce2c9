// Maintenance mode: pause every schedule, or every schedule with a tag, in one action with one reason and an
// optional until — and resume exactly those again. A window row (maintenance_windows) records the action; each
// schedule it paused points at it (schedules.maintenance_id), so a resume leaves alone the schedules an operator
// had paused for reasons of their own, and the console can say what is in maintenance.
// The whole scope goes through the set-based form of the single-schedule code (pauseSchedulesInTransaction /
// resumeSchedulesInTransaction: a few statements for all schedules, still one audit row and the held-run events
// each), and one more audit row records the maintenance action itself. The whole action is one
// transaction: all of the scope is paused, or nothing. A dry run does the real work and rolls it back, so a resume's
// dry run is exactly each schedule's misfire decision at that moment (what will run, what is recorded paused).
import { mayInTeam } from "../teams/team-access";
import { z } from "zod";
import type { Actor } from "../auth/roles";
import { recordAudit } from "../audit/record-audit";
import { dbNow, inTransaction, type Queryable } from "../db/pool";
import { ForbiddenError, ConflictError, ValidationError } from "../errors";
import { pauseSchedulesInTransaction } from "./pause-schedule";
import { resumeSchedulesInTransaction } from "./resume-schedule";
import { tagSchema } from "./schedule-input";
import { SCHEDULE_COLUMNS, toSchedule, type Schedule, type ScheduleRow } from "./schedule-record";
import { parseOrThrow } from "./validate-schedule-input";

export const maintenanceInputSchema = z
  .strictObject({
    action: z.enum(["pause", "resume"], { error: "action must be pause or resume" }),
    /** Only schedules with this tag; without, every schedule. */
    tag: tagSchema.optional(),
    reason: z
      .string({ error: "Reason must be a string: say why" })
      .trim()
      .max(500, { error: "Reason must be at most 500 characters" })
      .optional(),
    until: z.iso
      .datetime({ offset: true, error: "Until must be an ISO 8601 date-time with an offset, e.g. 2026-12-01T09:00:00Z" })
      .optional(),
    dryRun: z.boolean({ error: "dryRun must be true or false" }).optional(),
  })
  .superRefine((v, ctx) => {
    if (v.action === "pause" && !v.reason)
      ctx.addIssue({
        code: "custom",
        path: ["reason"],
        message: "Say why the schedules are paused (shown on every page while maintenance lasts and kept in the audit trail)",
      });
    if (v.action === "resume" && v.until) ctx.addIssue({ code: "custom", path: ["until"], message: "until applies to pause only" });
  });
export type MaintenanceInput = z.input<typeof maintenanceInputSchema>;

export interface MaintenanceWindow {
  id: string;
  /** null: every schedule. */
  tag: string | null;
  reason: string;
  until: Date | null;
  startedBy: string;
  startedAt: Date;
  /** Schedules it still holds paused. */
  pausedSchedules: number;
}

export interface MaintenanceResult {
  action: "pause" | "resume";
  dryRun: boolean;
  tag: string | null;
  maintenanceId: string | null;
  /** pause: the schedules paused, with the not-started runs each now holds. */
  paused: { id: string; name: string; held: number }[];
  /** pause: schedules of the scope left as they were (already paused, by whom and why). */
  skipped: { id: string; name: string; pausedBy: string | null; reason: string | null }[];
  /** resume: each schedule's misfire outcome (what runs now, what is recorded paused). */
  resumed: { id: string; name: string; misfirePolicy: string; count: number; plannedAt: string[]; recordedPaused: number }[];
  /** resume: runs enqueued (or, in a dry run, that would be) over all schedules. */
  count: number;
}

export async function maintenanceAction(input: unknown, actor: Actor, opts: { db?: Queryable } = {}): Promise<MaintenanceResult> {
  const v = parseOrThrow(maintenanceInputSchema, input ?? {});
  const dryRun = v.dryRun ?? false;
  const tag = v.tag ?? null;
  return inTransaction({ tx: opts.db, dryRun }, async (tx) => {
    await endExpiredWindows(tx);
    return v.action === "pause"
      ? startMaintenance(tx, { tag, reason: v.reason!, until: v.until ? new Date(v.until) : null, dryRun }, actor)
      : endMaintenance(tx, { tag, reason: v.reason ?? null, dryRun }, actor);
  });
}

async function startMaintenance(
  tx: Queryable,
  p: { tag: string | null; reason: string; until: Date | null; dryRun: boolean },
  actor: Actor,
): Promise<MaintenanceResult> {
  const now = await dbNow(tx);
  if (p.until && p.until.getTime() <= now.getTime()) {
    const message = `Until (${p.until.toISOString()}) must be in the future (database time is ${now.toISOString()})`;
    throw new ValidationError(message, { until: message });
  }
  const open = await findOpenWindow(tx, p.tag);
  if (open) {
    throw new ConflictError(
      `${scopeLabel(p.tag)} are already in maintenance (since ${open.startedAt.toISOString()}, by ${open.startedBy}: ${open.reason}); resume it first.`,
      "maintenance_active",
    );
  }
  const { rows } = await tx.query<{ id: string }>(
    `INSERT INTO maintenance_windows (tag, reason, until, started_by) VALUES ($1, $2, $3, $4) RETURNING id`,
    [p.tag, p.reason, p.until?.toISOString() ?? null, actor.label],
  );
  const maintenanceId = rows[0]!.id;
  const scope = await lockSchedules(tx, "s.deleted_at IS NULL AND ($1::text IS NULL OR s.tags @> ARRAY[$1::text])", [p.tag]);
  if (scope.length === 0 && p.tag) {
    // Most likely a typo: a window over nothing would show a banner and pause nothing.
    const message = `No schedule has the tag ${p.tag}`;
    throw new ValidationError(message, { tag: message });
  }
  assertOperatorOfAll(actor, scope);
  const toPause = scope.filter((s) => !s.paused);
  const skipped: MaintenanceResult["skipped"] = scope
    .filter((s) => s.paused)
    .map((s) => ({ id: s.id, name: s.name, pausedBy: s.paused!.by, reason: s.paused!.reason }));
  const held = await pauseSchedulesInTransaction(tx, toPause, { reason: `maintenance: ${p.reason}`, until: p.until, maintenanceId }, actor);
  const paused: MaintenanceResult["paused"] = toPause.map((s) => ({ id: s.id, name: s.name, held: held.get(s.id)! }));
  await recordAudit(tx, {
    actor,
    action: "schedules.maintenance_start",
    targetType: "maintenance",
    targetId: maintenanceId,
    after: {
      tag: p.tag,
      until: p.until?.toISOString() ?? null,
      paused: paused.map((s) => s.name),
      skipped: skipped.map((s) => ({ name: s.name, pausedBy: s.pausedBy })),
    },
    reason: p.reason,
  });
  return { action: "pause", dryRun: p.dryRun, tag: p.tag, maintenanceId, paused, skipped, resumed: [], count: 0 };
}

/**
 * A maintenance window is installation-wide (every schedule, or every one with a tag): it is for a caller who operates
 * every team whose schedules it pauses or resumes — the global admin, or an operator when all of them are its teams'.
 */
function assertOperatorOfAll(actor: Actor, scope: readonly Schedule[]): void {
  const other = scope.find((s) => !mayInTeam(actor, s.teamId, "operator"));
  if (other) {
    throw new ForbiddenError(
      `This maintenance window covers schedules of team ${other.team}, where you are not an operator: narrow it with a tag of your team's schedules, or ask an admin.`,
    );
  }
}

async function endMaintenance(
  tx: Queryable,
  p: { tag: string | null; reason: string | null; dryRun: boolean },
  actor: Actor,
): Promise<MaintenanceResult> {
  const open = await findOpenWindow(tx, p.tag, { lock: true });
  if (!open) throw new ConflictError(`${scopeLabel(p.tag)} are not in maintenance.`, "not_in_maintenance");
  const scope = (await lockSchedules(tx, "s.deleted_at IS NULL AND s.maintenance_id = $1::uuid", [open.id])).filter((s) => s.paused);
  assertOperatorOfAll(actor, scope);
  const results = await resumeSchedulesInTransaction(tx, scope, actor);
  const resumed: MaintenanceResult["resumed"] = scope.map((s) => {
    const r = results.get(s.id)!;
    return {
      id: s.id,
      name: s.name,
      misfirePolicy: r.misfirePolicy,
      count: r.count,
      plannedAt: r.plannedAt,
      recordedPaused: r.recordedPaused,
    };
  });
  await tx.query(`UPDATE maintenance_windows SET ended_at = clock_timestamp(), ended_by = $2 WHERE id = $1`, [open.id, actor.label]);
  const count = resumed.reduce((n, r) => n + r.count, 0);
  await recordAudit(tx, {
    actor,
    action: "schedules.maintenance_end",
    targetType: "maintenance",
    targetId: open.id,
    before: { tag: open.tag, reason: open.reason, startedBy: open.startedBy, startedAt: open.startedAt.toISOString() },
    after: {
      resumed: resumed.map((r) => ({ name: r.name, runsEnqueued: r.count, recordedPaused: r.recordedPaused })),
      runsEnqueued: count,
    },
    reason: p.reason,
  });
  return { action: "resume", dryRun: p.dryRun, tag: p.tag, maintenanceId: open.id, paused: [], skipped: [], resumed, count };
}

/** Open windows (newest first) with how many schedules each still holds paused: the console's banner. */
export async function listMaintenance(db: Queryable): Promise<MaintenanceWindow[]> {
  const { rows } = await db.query(
    `SELECT w.*, (SELECT count(*)::int FROM schedules s WHERE s.maintenance_id = w.id AND s.deleted_at IS NULL AND s.paused_at IS NOT NULL) AS n
       FROM maintenance_windows w
      WHERE w.ended_at IS NULL AND (w.until IS NULL OR w.until > clock_timestamp())
      ORDER BY w.started_at DESC`,
  );
  return rows.map(toWindow);
}

// A window whose until has passed is over: the planner auto-resumes its schedules (each pause carries the same
// until). Closing it here frees its scope for a new window.
async function endExpiredWindows(tx: Queryable): Promise<void> {
  await tx.query(
    `UPDATE maintenance_windows SET ended_at = until, ended_by = 'until reached' WHERE ended_at IS NULL AND until <= clock_timestamp()`,
  );
}

async function findOpenWindow(tx: Queryable, tag: string | null, opts: { lock?: boolean } = {}): Promise<MaintenanceWindow | null> {
  const { rows } = await tx.query(
    `SELECT w.*, 0 AS n FROM maintenance_windows w WHERE w.ended_at IS NULL AND w.tag IS NOT DISTINCT FROM $1${opts.lock ? " FOR UPDATE" : ""}`,
    [tag],
  );
  return rows[0] ? toWindow(rows[0]) : null;
}

// In name order, so two maintenance actions lock schedules in the same order (no deadlock between them).
async function lockSchedules(tx: Queryable, where: string, params: unknown[]): Promise<Schedule[]> {
  const { rows } = await tx.query<ScheduleRow>(
    `SELECT ${SCHEDULE_COLUMNS} FROM schedules s WHERE ${where} ORDER BY s.name, s.id FOR UPDATE OF s`,
    params,
  );
  return rows.map(toSchedule);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
function toWindow(r: any): MaintenanceWindow {
  return {
    id: r.id,
    tag: r.tag,
    reason: r.reason,
    until: r.until,
    startedBy: r.started_by,
    startedAt: r.started_at,
    pausedSchedules: r.n,
  };
}

const scopeLabel = (tag: string | null) => (tag ? `Schedules tagged ${tag}` : "All schedules");
