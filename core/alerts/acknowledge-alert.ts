// An operator acknowledges an alert ("I am on it"): recorded on the alert and in the audit trail, in
// one transaction. Acknowledging does not resolve: the alert resolves when its condition clears. An alert that has
// already resolved has nothing left to handle: acknowledging it is refused (409), so nothing claims it afterwards.
// The PagerDuty channels the alert went to are told, so the incident there is acknowledged as well.
import type pg from "pg";
import { withTransaction } from "../db/pool";
import { recordAudit } from "../audit/record-audit";
import type { Actor } from "../auth/roles";
import { ConflictError, NotFoundError } from "../errors";
import { enqueueChannelDeliveries } from "./channels/enqueue-channel-deliveries";
import { ALERT_COLUMNS, toAlertView, type AlertRow, type AlertView } from "./list-alerts";

export async function acknowledgeAlert(pool: pg.Pool, alertId: string, actor: Actor, note: string | null): Promise<AlertView> {
  return withTransaction(async (tx) => {
    const { rows } = await tx.query<{ id: string }>(
      `UPDATE alerts SET acknowledged_at = clock_timestamp(), acknowledged_by = $2
        WHERE id = $1 AND acknowledged_at IS NULL AND resolved_at IS NULL
       RETURNING id`,
      [alertId, actor.label],
    );
    if (rows.length === 0) {
      const { rows: existing } = await tx.query<{ acknowledged_by: string; acknowledged_at: Date | null; resolved_at: Date | null }>(
        `SELECT acknowledged_by, acknowledged_at, resolved_at FROM alerts WHERE id = $1`,
        [alertId],
      );
      const ack = existing[0];
      if (!ack) throw new NotFoundError("Alert", alertId);
      if (ack.acknowledged_at === null)
        throw new ConflictError(
          `This alert resolved at ${ack.resolved_at!.toISOString()}: its cause cleared, there is nothing left to acknowledge.`,
          "alert_resolved",
        );
      throw new ConflictError(
        `This alert was already acknowledged by ${ack.acknowledged_by} at ${ack.acknowledged_at.toISOString()}.`,
        "already_acknowledged",
      );
    }
    await enqueueChannelDeliveries(tx, [alertId], "acknowledged");
    const { rows: after } = await tx.query<AlertRow>(
      `SELECT ${ALERT_COLUMNS} FROM alerts a LEFT JOIN schedules s ON s.id = a.schedule_id WHERE a.id = $1`,
      [alertId],
    );
    const alert = toAlertView(after[0]!);
    await recordAudit(tx, {
      actor,
      action: "alert.acknowledge",
      targetType: "alert",
      targetId: alertId,
      before: { acknowledgedAt: null },
      after: {
        acknowledgedAt: alert.acknowledgedAt,
        acknowledgedBy: alert.acknowledgedBy,
        kind: alert.kind,
        scheduleId: alert.scheduleId,
        message: alert.message,
      },
      reason: note,
    });
    return alert;
  }, pool);
}
