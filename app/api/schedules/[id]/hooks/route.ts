// GET  /api/schedules/:id/hooks   (operator) → { triggerUrls: [...] } — never a secret
// POST /api/schedules/:id/hooks   (operator) body: { label, authMode?: "hmac"|"bearer", payloadMode?: "schedule"|"body",
//   rateLimitPerMinute?: 1..6000 } → { triggerUrl, secret } — the secret is in this answer only.
import { z } from "zod";
import { apiRoute } from "../../../_lib/api-route";
import {
  createTriggerUrl,
  listTriggerUrls,
  triggerUrlInputSchema,
  triggerUrlListingSchema,
  triggerUrlWithSecretSchema,
} from "@/core/trigger-urls/trigger-url-store";
import { getPool } from "@/core/db/pool";

export const dynamic = "force-dynamic";

const params = z.object({ id: z.uuid() });

export const GET = apiRoute(
  {
    access: "operator",
    scope: "schedules:write",
    object: { kind: "schedule", param: "id" },
    params,
    summary: "List a schedule's trigger URLs (without secrets)",
    answer: z.object({ triggerUrls: z.array(triggerUrlListingSchema) }),
  },
  async ({ params }) => ({ triggerUrls: await listTriggerUrls(getPool(), params.id) }),
);

export const POST = apiRoute(
  {
    access: "operator",
    scope: "schedules:write",
    object: { kind: "schedule", param: "id" },
    params,
    body: triggerUrlInputSchema,
    summary: "Create a trigger URL for a schedule; its secret is answered once",
    answer: triggerUrlWithSecretSchema,
  },
  async ({ params, body, actor }) => createTriggerUrl(params.id, body, actor),
);
