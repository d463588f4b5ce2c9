// Creating and editing a calendar. An edit of the blocked times replans every schedule that follows the calendar: its
// not-started future runs the new rules no longer fire end cancelled with the reason, and its planning cursor goes
// back to now (replan-schedule.ts, as for a trigger edit). A dry run does the same work and rolls it back, so its
// answer is exactly what the save would do: which schedules' next fires change, old versus new. Audited, all in one
// transaction. Lock order: the calendar row, then the schedules that follow it (name order), their runs, the audit row.
import type { Actor } from "../auth/roles";
import { recordAudit } from "../audit/record-audit";
import { dbNow, inTransaction, type Queryable } from "../db/pool";
import { ConflictError } from "../errors";
import { notifyPlanner } from "../schedules/notify-planner";
import { replanAfterEdit } from "../schedules/replan-schedule";
import { sameJson } from "../schedules/update-schedule";
import { parseOrThrow } from "../schedules/validate-schedule-input";
import { calendarInputSchema, calendarUpdateSchema, type CalendarInput, type CalendarUpdate } from "./calendar-input";
import { calendarAuditView, getCalendarOrThrow, type Calendar } from "./calendar-record";
import type { CalendarRules } from "./calendar-rules";
import { resolveTeamForCreate } from "../teams/resolve-team";
import { previewCalendarChange, schedulesFollowing, type CalendarChangePreview } from "./preview-calendar-change";

export interface CalendarSaveResult {
  calendar: Calendar;
  dryRun: boolean;
  /** The schedules that follow the calendar: whose next fires change (old vs new) and whose do not. */
  effects: CalendarChangePreview;
  /** Not-started runs cancelled because the new rules no longer fire them (a dry run: would be). */
  cancelledRuns: number;
}

const RULE_FIELDS = ["timezone", "dates", "weekdays", "windows", "ranges"] as const;
const FIELDS = ["name", "description", ...RULE_FIELDS] as const;

/** Unparsed input (tests, seeds): parsed here. */
export async function createCalendar(input: unknown, actor: Actor, opts: { db?: Queryable } = {}): Promise<CalendarSaveResult> {
  return createParsedCalendar(parseOrThrow(calendarInputSchema, input), actor, opts);
}

export async function createParsedCalendar(
  v: CalendarInput,
  actor: Actor,
  opts: { db?: Queryable; audit?: Record<string, unknown> } = {},
): Promise<CalendarSaveResult> {
  const dryRun = v.dryRun ?? false;
  return inTransaction({ tx: opts.db, dryRun }, async (tx) => {
    const team = await resolveTeamForCreate(tx, actor, v.team);
    const id = await insertCalendar(tx, v, actor, team.id);
    const calendar = await getCalendarOrThrow(tx, id);
    await recordAudit(tx, {
      actor,
      action: "calendar.create",
      targetType: "calendar",
      targetId: id,
      after: { ...calendarAuditView(calendar), ...opts.audit },
    });
    return { calendar, dryRun, effects: { changed: [], unchanged: [] }, cancelledRuns: 0 };
  });
}

async function insertCalendar(tx: Queryable, v: CalendarInput, actor: Actor, teamId: string): Promise<string> {
  try {
    const { rows } = await tx.query<{ id: string }>(
      `INSERT INTO calendars (name, description, timezone, rules, created_by, team_id) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
      [v.name, v.description, v.timezone, JSON.stringify(rulesOf(v)), actor.label, teamId],
    );
    return rows[0]!.id;
  } catch (err) {
    throw nameTakenOr(err, v.name);
  }
}

/** `patch` is parsed by calendarUpdateSchema (the route's body schema). */
export async function updateCalendar(id: string, input: unknown, actor: Actor, opts: { db?: Queryable } = {}): Promise<CalendarSaveResult> {
  const patch: CalendarUpdate = parseOrThrow(calendarUpdateSchema, input);
  const dryRun = patch.dryRun ?? false;
  return inTransaction({ tx: opts.db, dryRun }, async (tx) => {
    const before = await getCalendarOrThrow(tx, id, { lock: true });
    if (patch.revision !== before.revision) {
      throw new ConflictError(
        `Calendar "${before.name}" was changed since you loaded it (you edited revision ${patch.revision}, it is now at ${before.revision}); reload it and apply your change again.`,
        "stale_revision",
      );
    }
    const changed = FIELDS.filter((f) => patch[f] !== undefined && !sameJson(patch[f], before[f]));
    if (changed.length === 0)
      return { calendar: before, dryRun, effects: { changed: [], unchanged: before.schedules.map((s) => s.name) }, cancelledRuns: 0 };
    const rulesChanged = changed.some((f) => (RULE_FIELDS as readonly string[]).includes(f));
    const next = { ...before, ...Object.fromEntries(changed.map((f) => [f, patch[f]])) } as Calendar;

    // The schedules first (lock order), then what their next fires become.
    const schedules = rulesChanged ? await schedulesFollowing(tx, id, { lock: true }) : [];
    const effects = rulesChanged
      ? await previewCalendarChange(tx, schedules, next, await dbNow(tx))
      : { changed: [], unchanged: before.schedules.map((s) => s.name) };
    try {
      await tx.query(
        `UPDATE calendars SET name = $2, description = $3, timezone = $4, rules = $5, revision = revision + 1, updated_at = clock_timestamp()
          WHERE id = $1`,
        [id, next.name, next.description, next.timezone, JSON.stringify(rulesOf(next))],
      );
    } catch (err) {
      throw nameTakenOr(err, next.name);
    }
    const after = await getCalendarOrThrow(tx, id);
    let cancelledRuns = 0;
    for (const s of schedules) {
      const outcome = await replanAfterEdit(tx, s, s, {
        triggerChanged: false,
        snapshotChanged: false,
        jitterChanged: false,
        calendarsChanged: `calendar "${after.name}" was changed (revision ${after.revision})`,
      });
      cancelledRuns += outcome.cancelled;
      await notifyPlanner(tx, s.id);
    }
    const pick = (c: Calendar) => Object.fromEntries(changed.map((f) => [f, (calendarAuditView(c) as Record<string, unknown>)[f]]));
    await recordAudit(tx, {
      actor,
      action: "calendar.edit",
      targetType: "calendar",
      targetId: id,
      before: { ...pick(before), revision: before.revision },
      after: {
        ...pick(after),
        revision: after.revision,
        ...(rulesChanged
          ? { replanned: schedules.map((s) => s.name), nextFiresChanged: effects.changed.map((c) => c.schedule.name), cancelledRuns }
          : {}),
      },
    });
    return { calendar: after, dryRun, effects, cancelledRuns };
  });
}

function rulesOf(v: Pick<CalendarRules, "dates" | "weekdays" | "windows" | "ranges">) {
  return { dates: v.dates, weekdays: v.weekdays, windows: v.windows, ranges: v.ranges };
}

function nameTakenOr(err: unknown, name: string): unknown {
  const e = err as { code?: string; constraint?: string };
  if (e.code === "23505" && e.constraint === "calendars_name_key") {
    const message = `A calendar named "${name}" already exists; choose another name or edit that calendar.`;
    return new ConflictError(message, "name_taken", { name: message });
  }
  return err;
}
