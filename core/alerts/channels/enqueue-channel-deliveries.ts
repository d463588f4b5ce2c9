// Queues deliveries to the alert channels whose routing takes an alert, in the same transaction as the change.
// Routing: the channel's kinds (none listed: every kind) and its schedules or tags (neither listed: every
// schedule, and the alerts about no schedule — no live worker, planner behind). A kind an operator silenced on a
// schedule goes to no channel either (alert-silences.ts). "acknowledged" goes only to the PagerDuty channels the
// alert's opening was queued for, so the incident there is acknowledged too. A channel takes only its own team's
// alerts (and those about no schedule): one team's incidents never reach another team's pager.
import type { Queryable } from "../../db/pool";
import type { AlertEvent } from "../alert-kinds";
import { SILENCE_ACTIVE } from "../alert-silences";

export async function enqueueChannelDeliveries(db: Queryable, alertIds: string[], event: AlertEvent): Promise<number> {
  if (alertIds.length === 0) return 0;
  const routed =
    event === "acknowledged"
      ? `c.type = 'pagerduty' AND EXISTS (SELECT 1 FROM alert_deliveries o WHERE o.alert_id = a.id AND o.channel_id = c.id AND o.event = 'opened')`
      : `(cardinality(c.kinds) = 0 OR a.kind = ANY(c.kinds))
         AND ((cardinality(c.schedule_ids) = 0 AND cardinality(c.tags) = 0) OR a.schedule_id = ANY(c.schedule_ids) OR s.tags && c.tags)`;
  const { rowCount } = await db.query(
    `INSERT INTO alert_deliveries (alert_id, event, url, channel_id)
     SELECT a.id, $2, 'channel:' || c.name, c.id
       FROM alerts a
       LEFT JOIN schedules s ON s.id = a.schedule_id
       JOIN alert_channels c ON c.enabled AND (a.schedule_id IS NULL OR s.team_id = c.team_id) AND ${routed}
      WHERE a.id = ANY($1::uuid[])
        AND NOT EXISTS (SELECT 1 FROM alert_silences x WHERE x.schedule_id = a.schedule_id AND x.kind = a.kind AND ${SILENCE_ACTIVE})`,
    [alertIds, event],
  );
  return rowCount ?? 0;
}
