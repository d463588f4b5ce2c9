// Queues webhook deliveries for alerts that opened or resolved, in the same transaction as the
// change: to the schedule's webhook_url and to the global URL (once if they are the same).
import type { Queryable } from "../db/pool";

export type AlertEvent = "opened" | "resolved";

export async function enqueueAlertDeliveries(
  db: Queryable,
  alertIds: string[],
  event: AlertEvent,
  globalUrl: string | null | undefined,
): Promise<number> {
  if (alertIds.length === 0) return 0;
  const { rowCount } = await db.query(
    `INSERT INTO alert_deliveries (alert_id, event, url)
     SELECT a.id, $2, u.url
       FROM alerts a
       LEFT JOIN schedules s ON s.id = a.schedule_id
      CROSS JOIN LATERAL (
        SELECT DISTINCT x AS url FROM unnest(ARRAY[s.webhook_url, $3::text]) AS x WHERE coalesce(x, '') <> '') u
      WHERE a.id = ANY($1::uuid[])`,
    [alertIds, event, globalUrl ?? null],
  );
  return rowCount ?? 0;
}
