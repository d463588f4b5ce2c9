// What an edit does to occurrences already written. A run that has not started takes the schedule's new
// settings (handler, payload, timeout, grace, attempts, group, jitter): an edit applies to everything that has
// not started. When the fire times change (trigger edited), future not-started occurrences the new trigger does
// not fire end `cancelled` with a 'replanned' event saying why, the ones it still fires are kept, and the
// planning cursor goes back to now so the planner writes the new trigger's fires at once. A change of the schedule's
// calendars (or of a calendar it follows) replans the same way: what still fires is the schedule's plan
// (fire-plan.ts), calendars included.
import { loadScheduleCalendars } from "../calendars/calendar-rules";
import type { Queryable } from "../db/pool";
import { recordRunEvents } from "../runs/record-run-event";
import { MAX_FIRE_TIMES } from "./fire-time";
import { firePlanOf, planFires } from "./fire-plan";
import type { Schedule } from "./schedule-record";

export interface ReplanOutcome {
  cancelled: number;
  kept: number;
  refreshed: number;
}

export async function replanAfterEdit(
  tx: Queryable,
  before: Schedule,
  after: Schedule,
  opts: {
    triggerChanged: boolean;
    snapshotChanged: boolean;
    jitterChanged: boolean;
    /** The schedule's calendars (or one of them) changed: why, as a run event says it ("calendar "X" was changed"). */
    calendarsChanged?: string;
  },
): Promise<ReplanOutcome> {
  const outcome: ReplanOutcome = { cancelled: 0, kept: 0, refreshed: 0 };
  const { rows: nowRows } = await tx.query<{ now: Date }>("SELECT clock_timestamp() AS now");
  const now = nowRows[0]!.now;

  if (opts.triggerChanged || opts.calendarsChanged) {
    const { rows: future } = await tx.query<{ id: string; planned_at: Date }>(
      `SELECT id, planned_at FROM runs
        WHERE schedule_id = $1 AND kind = 'scheduled' AND state IN ('planned', 'queued') AND planned_at > $2
        ORDER BY planned_at
          FOR UPDATE SKIP LOCKED`,
      [after.id, now.toISOString()],
    );
    const last = future.at(-1)?.planned_at;
    const links = last ? ((await loadScheduleCalendars(tx, [after.id])).get(after.id) ?? []) : [];
    const plan = last ? planFires(firePlanOf(after, links), { from: now, until: last }, { limit: MAX_FIRE_TIMES }).fires : [];
    const stillFires = new Set(plan.filter((f) => f.fate === "run").map((f) => f.plannedAt.getTime()));
    const gone = future.filter((r) => !stillFires.has(r.planned_at.getTime())).map((r) => r.id);
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
          message: opts.triggerChanged
            ? `cancelled: the trigger was changed in revision ${after.revision} (${after.triggerDescription}), which does not fire at this time`
            : `cancelled: ${opts.calendarsChanged}, and the schedule no longer fires at this time`,
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
       UPDATE runs r SET handler = s.handler, payload = s.payload, timeout_seconds = s.timeout_seconds,
              grace_seconds = s.grace_seconds, max_attempts = s.retry_max_attempts, concurrency_group = s.concurrency_group,
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
