// POST /api/hooks/:id   (public: authenticated by the trigger URL's own secret, core/trigger-urls/)
//   HMAC URL: headers Vigil-Timestamp (unix seconds, within 300 s of the database clock) and
//   Vigil-Signature: v1=<hex HMAC-SHA256 of "<timestamp>.<raw body>">; bearer URL: Authorization: Bearer <secret>.
//   Idempotency-Key or Vigil-Delivery-Id: a repeat answers the first delivery's run (replayed: true).
//   Body at most 64 KiB; with payload mode "body" a JSON object that becomes the run's payload.
//   → { runId, scheduleId, replayed }; refused → 4xx { error: { code, message } } (404 for unknown and revoked alike,
//   401 signature_mismatch / timestamp_outside_window / bearer_mismatch …, 413, 422 payload_invalid, 429 + Retry-After).
import { z } from "zod";
import { apiRoute, clientInfo } from "../../_lib/api-route";
import { readRawBody } from "../../_lib/read-input";
import { PayloadTooLargeError } from "@/core/errors";
import { getConsoleBoss } from "@/core/queue/console-boss";
import { auditRefusal, receiveTriggerDelivery } from "@/core/trigger-urls/receive-trigger-delivery";

export const dynamic = "force-dynamic";

export const POST = apiRoute(
  {
    access: "public",
    summary: "Fire a schedule through one of its trigger URLs (signed or bearer delivery)",
    answer: z.object({ runId: z.uuid(), scheduleId: z.uuid(), replayed: z.boolean() }),
  },
  async ({ req, params }) => {
    // Not parsed as a uuid by apiRoute: a malformed id is a refused delivery like any other (audited, 404).
    const triggerUrlId = params.id ?? "";
    const client = clientInfo(req);
    let body: Buffer;
    try {
      body = await readRawBody(req);
    } catch (err) {
      if (err instanceof PayloadTooLargeError) await auditRefusal({ triggerUrlId, client }, null, err);
      throw err;
    }
    return receiveTriggerDelivery({
      triggerUrlId,
      body,
      header: (name) => req.headers.get(name),
      client,
      boss: await getConsoleBoss(),
    });
  },
);
