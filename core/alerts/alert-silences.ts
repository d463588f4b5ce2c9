// Silencing: an operator mutes one alert kind of one schedule for a while ("the vendor is down until 14:00,
// we know"). The alert is still raised, listed and shown; only its webhook deliveries are not queued while
// the silence is active (enqueue-alert-deliveries.ts). Setting and ending a silence are audited with the
// change, in one transaction. Times come from the database clock.
import { z } from "zod";
import type pg from "pg";
import { withTransaction, type Queryable } from "../db/pool";
import { recordAudit } from "../audit/record-audit";
import type { Actor } from "../auth/roles";
import { ConflictError, NotFoundError } from "../errors";
import { ALERT_KINDS } from "./alert-kinds";

const MAX_MINUTES = 7 * 24 * 60;

export const silenceInputSchema = z.strictObject({
  kind: z.enum(ALERT_KINDS, { error: `Alert kind must be one of ${ALERT_KINDS.join(", ")}` }),
  minutes: z
    .number({ error: "Minutes must be a whole number" })
    .int({ error: "Minutes must be a whole number" })
    .min(1, { error: "Silence for at least 1 minute" })
    .max(MAX_MINUTES, { error: `Silence for at most ${MAX_MINUTES} minutes (7 days)` }),
  reason: z
    .string({ error: "Say why the alerts are silenced" })
    .trim()
    .min(1, { error: "Say why the alerts are silenced" })
    .max(500, { error: "Reason: at most 500 characters" }),
});
export type SilenceInput = z.infer<typeof silenceInputSchema>;

export interface AlertSilenceView {
  id: string;
  scheduleId: string;
  kind: string;
  until: Date;
  reason: string;
  createdBy: string;
  createdAt: Date;
  endedAt: Date | null;
  endedBy: string | null;
}

/** SQL: is a silence row `x` in force now? Shared with the delivery queue so both agree. */
export const SILENCE_ACTIVE = "x.ended_at IS NULL AND x.until > clock_timestamp()";

const COLUMNS = "x.id, x.schedule_id, x.kind, x.until, x.reason, x.created_by, x.created_at, x.ended_at, x.ended_by";

/** A row of COLUMNS. */
interface SilenceRow {
  id: string;
  schedule_id: string;
  kind: string;
  until: Date;
  reason: string;
  created_by: string;
  created_at: Date;
  ended_at: Date | null;
  ended_by: string | null;
}

function toView(r: SilenceRow): AlertSilenceView {
  return {
    id: r.id,
    scheduleId: r.schedule_id,
    kind: r.kind,
    until: r.until,
    reason: r.reason,
    createdBy: r.created_by,
    createdAt: r.created_at,
    endedAt: r.ended_at,
    endedBy: r.ended_by,
  };
}

async function assertScheduleExists(db: Queryable, scheduleId: string): Promise<void> {
  const { rowCount } = await db.query(`SELECT 1 FROM schedules WHERE id = $1 AND deleted_at IS NULL`, [scheduleId]);
  if (!rowCount) throw new NotFoundError("Schedule", scheduleId);
}

/** The silences of a schedule in force now, soonest to end first. */
export async function listActiveSilences(db: Queryable, scheduleId: string): Promise<AlertSilenceView[]> {
  await assertScheduleExists(db, scheduleId);
  const { rows } = await db.query<SilenceRow>(
    `SELECT ${COLUMNS} FROM alert_silences x WHERE x.schedule_id = $1 AND ${SILENCE_ACTIVE} ORDER BY x.until, x.id`,
    [scheduleId],
  );
  return rows.map(toView);
}

export async function silenceAlertKind(pool: pg.Pool, scheduleId: string, input: SilenceInput, actor: Actor): Promise<AlertSilenceView> {
  return withTransaction(async (tx) => {
    await assertScheduleExists(tx, scheduleId);
    const { rows } = await tx.query<SilenceRow>(
      `INSERT INTO alert_silences AS x (schedule_id, kind, until, reason, created_by)
       VALUES ($1, $2, clock_timestamp() + $3 * interval '1 minute', $4, $5)
       RETURNING ${COLUMNS}`,
      [scheduleId, input.kind, input.minutes, input.reason, actor.label],
    );
    const silence = toView(rows[0]!);
    await recordAudit(tx, {
      actor,
      action: "schedule.alerts_silence",
      targetType: "schedule",
      targetId: scheduleId,
      after: { silenceId: silence.id, kind: silence.kind, until: silence.until, minutes: input.minutes },
      reason: input.reason,
    });
    return silence;
  }, pool);
}

/** Ends a silence before its time; 409 when it already ended (early or by running out). */
export async function endAlertSilence(pool: pg.Pool, scheduleId: string, silenceId: string, actor: Actor): Promise<AlertSilenceView> {
  return withTransaction(async (tx) => {
    const { rows } = await tx.query<SilenceRow>(
      `UPDATE alert_silences x SET ended_at = clock_timestamp(), ended_by = $3
        WHERE x.id = $1 AND x.schedule_id = $2 AND ${SILENCE_ACTIVE}
       RETURNING ${COLUMNS}`,
      [silenceId, scheduleId, actor.label],
    );
    if (rows.length === 0) {
      const { rowCount } = await tx.query(`SELECT 1 FROM alert_silences WHERE id = $1 AND schedule_id = $2`, [silenceId, scheduleId]);
      if (!rowCount) throw new NotFoundError("Alert silence", silenceId);
      throw new ConflictError("This silence has already ended.", "silence_ended");
    }
    const silence = toView(rows[0]!);
    await recordAudit(tx, {
      actor,
      action: "schedule.alerts_unsilence",
      targetType: "schedule",
      targetId: scheduleId,
      before: { silenceId: silence.id, kind: silence.kind, until: silence.until },
      after: { endedAt: silence.endedAt },
    });
    return silence;
  }, pool);
}
