// One round of webhook delivery: claim what is due (SKIP LOCKED, under a lease) and send it all
// concurrently. The console uses it when no worker is live — the moment the "no live worker" alert
// most needs to leave the building and no alerter is running to send it.
import type { Queryable } from "../../db/pool";
import { claimAlertDeliveries } from "./claim-alert-deliveries";
import { deliverAlertWebhook, type DeliveryReport, type WebhookOptions } from "./deliver-alert-webhook";
import { webhookLeaseMs } from "./webhook-options";

export async function deliverDueWebhooks(db: Queryable, opts: WebhookOptions, limit: number): Promise<DeliveryReport[]> {
  const claimed = await claimAlertDeliveries(db, { limit, leaseMs: webhookLeaseMs(opts), perUrl: 2, inFlightByUrl: new Map() });
  return Promise.all(claimed.map((d) => deliverAlertWebhook(db, d, opts)));
}
