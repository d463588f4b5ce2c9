// Queues webhook deliveries for alerts that opened or resolved, in the same transaction as the
// change: to the schedule's webhook_url in the schedule's format and to the global URL in the global
// format (once if the URLs are the same: then the schedule's format wins). Nothing is queued for an alert
// whose kind an operator silenced on its schedule (alert-silences.ts). The alert channels whose routing takes the
// alert get theirs too (channels/enqueue-channel-deliveries.ts).
import type { Queryable } from "../db/pool";
import type { AlertEvent } from "./alert-kinds";
import { SILENCE_ACTIVE } from "./alert-silences";
import { enqueueChannelDeliveries } from "./channels/enqueue-channel-deliveries";
import type { WebhookFormat } from "./webhook/webhook-format";

export async function enqueueAlertDeliveries(
  db: Queryable,
  alertIds: string[],
  event: AlertEvent,
  globalUrl: string | null | undefined,
  globalFormat: WebhookFormat = "vigil",
): Promise<number> {
  if (alertIds.length === 0) return 0;
  const { rowCount } = await db.query(
    `INSERT INTO alert_deliveries (alert_id, event, url, format)
     SELECT a.id, $2, u.url, u.format
       FROM alerts a
       LEFT JOIN schedules s ON s.id = a.schedule_id
      CROSS JOIN LATERAL (
        SELECT DISTINCT ON (x.url) x.url, x.format
          FROM unnest(ARRAY[s.webhook_url, $3::text], ARRAY[s.webhook_format, $4::text], ARRAY[1, 2]) AS x(url, format, pos)
         WHERE coalesce(x.url, '') <> ''
         ORDER BY x.url, x.pos) u
      WHERE a.id = ANY($1::uuid[])
        AND NOT EXISTS (SELECT 1 FROM alert_silences x WHERE x.schedule_id = a.schedule_id AND x.kind = a.kind AND ${SILENCE_ACTIVE})`,
    [alertIds, event, globalUrl ?? null, globalFormat],
  );
  return (rowCount ?? 0) + (await enqueueChannelDeliveries(db, alertIds, event));
}
