// What an edit does to occurrences already written. A run that has not started takes the schedule's new
// settings (handler, payload, timeout, grace, attempts, group, jitter): an edit applies to everything that has
// not started. When the plan changes (trigger, timezone, DST policy, calendars, start/end dates: REPLAN_FIELDS in
// update-schedule.ts), future not-started occurrences the new fire plan (fire-plan.ts) does not run at the same
// instant for the same nominal fire end `cancelled` with a 'replanned' event saying why (superseded), the ones it
// still runs are kept, and the planning cursor goes back to now so the planner writes the new plan at once. A change
// of a calendar the schedule follows (core/calendars/) replans it the same way.
import { loadScheduleCalendars } from "../calendars/calendar-rules";
import type { Queryable } from "../db/pool";
import { recordRunEvents } from "../runs/record-run-event";
import { snapshotAssignments } from "../runs/schedule-snapshot";
import { firePlanOf, planFires, SHIFT_LOOKBACK_MS } from "./fire-plan";
import type { Schedule } from "./schedule-record";

export interface ReplanOutcome {
  cancelled: number;
  kept: number;
  refreshed: number;
  /** The rows cancelled as superseded (an edit's dry run lists them). */
  superseded: { id: string; plannedAt: Date; nominalAt: Date; state: string }[];
}

export async function replanAfterEdit(
  tx: Queryable,
  before: Schedule,
  after: Schedule,
  opts: {
    triggerChanged: boolean;
    snapshotChanged: boolean;
    jitterChanged: boolean;
    planFields?: string[];
    /** A calendar it follows changed: why, as a run event says it ("calendar "X" was changed"). */
    calendarsChanged?: string;
  },
): Promise<ReplanOutcome> {
  const outcome: ReplanOutcome = { cancelled: 0, kept: 0, refreshed: 0, superseded: [] };
  const { rows: nowRows } = await tx.query<{ now: Date }>("SELECT clock_timestamp() AS now");
  const now = nowRows[0]!.now;

  if (opts.triggerChanged || opts.calendarsChanged) {
    const { rows: future } = await tx.query<{ id: string; planned_at: Date; nominal_at: Date; state: string }>(
      `SELECT id, planned_at, coalesce(nominal_at, planned_at) AS nominal_at, state FROM runs
        WHERE schedule_id = $1 AND kind = 'scheduled' AND state IN ('planned', 'queued') AND planned_at > $2
        ORDER BY planned_at
          FOR UPDATE SKIP LOCKED`,
      [after.id, now.toISOString()],
    );
    const last = Math.max(...future.map((r) => Math.max(r.planned_at.getTime(), r.nominal_at.getTime())));
    const links = future.length > 0 ? await loadScheduleCalendars(tx, [after.id]) : new Map();
    // Fires a calendar moves by up to the lookback may land among these rows: plan that much around them.
    const plan =
      future.length > 0
        ? planFires(firePlanOf(after, links.get(after.id) ?? []), {
            from: new Date(now.getTime() - SHIFT_LOOKBACK_MS),
            until: new Date(last + SHIFT_LOOKBACK_MS),
          }).fires
        : [];
    const stillRuns = new Set(
      plan.filter((f) => f.fate === "run" || f.fate === "paused").map((f) => `${f.nominalAt.getTime()}@${f.plannedAt.getTime()}`),
    );
    const goneRows = future.filter((r) => !stillRuns.has(`${r.nominal_at.getTime()}@${r.planned_at.getTime()}`));
    const gone = goneRows.map((r) => r.id);
    outcome.superseded = goneRows.map((r) => ({ id: r.id, plannedAt: r.planned_at, nominalAt: r.nominal_at, state: r.state }));
    outcome.kept = future.length - gone.length;
    if (gone.length > 0) {
      // The key is released (no handler ever saw it): a later edit that fires at this instant again plans it afresh.
      await tx.query(
        `UPDATE runs SET state = 'cancelled', wait_reason = NULL, updated_at = clock_timestamp(),
                idempotency_key = 'superseded:' || id || ':' || idempotency_key
          WHERE id = ANY($1::uuid[])`,
        [gone],
      );
      await recordRunEvents(
        tx,
        gone.map((id) => ({
          runId: id,
          type: "replanned" as const,
          message:
            opts.calendarsChanged && !opts.triggerChanged
              ? `cancelled: ${opts.calendarsChanged}, and the schedule no longer runs this fire at this time`
              : opts.planFields?.some((f) => f !== "trigger")
                ? `cancelled: revision ${after.revision} changed the schedule's plan (${opts.planFields.join(", ")}), which does not run this fire at this time`
                : `cancelled: the trigger was changed in revision ${after.revision} (${after.triggerDescription}), which does not fire at this time`,
          data: { cancelled: true, revision: after.revision, trigger: after.trigger },
        })),
      );
      outcome.cancelled = gone.length;
    }
    await tx.query(`UPDATE schedules SET planned_through = $2 WHERE id = $1`, [after.id, now.toISOString()]);
  }

  if (opts.snapshotChanged || opts.jitterChanged) {
    const { rows } = await tx.query<{ id: string }>(
      `WITH target AS (
         SELECT id FROM runs WHERE schedule_id = $1 AND state IN ('planned', 'queued') FOR UPDATE SKIP LOCKED
       )
       UPDATE runs r SET ${snapshotAssignments("s")},
              due_at = CASE WHEN $2 AND r.state = 'planned' AND r.kind = 'scheduled' AND r.planned_at > clock_timestamp()
                            THEN r.planned_at + make_interval(secs => floor(random() * (s.start_jitter_ms + 1)) / 1000.0)
                            ELSE r.due_at END,
              updated_at = clock_timestamp()
         FROM target, schedules s
        WHERE r.id = target.id AND s.id = r.schedule_id
       RETURNING r.id`,
      [after.id, opts.jitterChanged],
    );
    await recordRunEvents(
      tx,
      rows.map((r) => ({
        runId: r.id,
        type: "replanned" as const,
        message: `not started yet: takes the settings of revision ${after.revision}`,
        data: { revision: after.revision },
      })),
    );
    outcome.refreshed = rows.length;
  }
  return outcome;
}
