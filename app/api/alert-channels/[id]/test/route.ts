// POST /api/alert-channels/:id/test  (operator) → { outcome: { delivered, error, status, durationMs, … } }
// Sends a made-up alert through the channel now and answers what happened; audited. Delivery failures are an
// answer (delivered: false with the reason), not an HTTP error.
import { z } from "zod";
import { apiRoute } from "../../../_lib/api-route";
import { getPool } from "@/core/db/pool";
import { getEnv } from "@/core/env";
import { testAlertChannel } from "@/core/alerts/channels/test-alert-channel";

export const dynamic = "force-dynamic";

export const POST = apiRoute(
  {
    access: "operator",
    scope: "alerts:configure",
    object: { kind: "alert_channel", param: "id" },
    params: z.object({ id: z.uuid() }),
    summary: "Send a test alert through a channel now and answer the outcome",
    answer: z.object({
      outcome: z.object({
        channelId: z.string(),
        channel: z.string(),
        delivered: z.boolean(),
        error: z.string().nullable(),
        status: z.number().nullable(),
        durationMs: z.number(),
      }),
    }),
  },
  async ({ params, actor }) => {
    const env = getEnv();
    const outcome = await testAlertChannel(getPool(), params.id, actor, {
      timeoutMs: env.VIGIL_ALERT_WEBHOOK_TIMEOUT_MS,
      userAgent: "vigil-console",
      webhookSecret: env.VIGIL_ALERT_WEBHOOK_SECRET ?? null,
    });
    return { outcome };
  },
);
