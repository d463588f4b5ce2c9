// POST /api/schedules/:id/hooks/:hookId/rotate   (operator) → { triggerUrl, secret } — a new secret, answered once;
//   the old one is refused from now on.
import { z } from "zod";
import { apiRoute } from "../../../../../_lib/api-route";
import { rotateTriggerUrlSecret, triggerUrlWithSecretSchema } from "@/core/trigger-urls/trigger-url-store";

export const dynamic = "force-dynamic";

export const POST = apiRoute(
  {
    access: "operator",
    scope: "schedules:write",
    object: { kind: "schedule", param: "id" },
    params: z.object({ id: z.uuid(), hookId: z.uuid() }),
    summary: "Rotate a trigger URL's secret; the new secret is answered once",
    answer: triggerUrlWithSecretSchema,
  },
  async ({ params, actor }) => rotateTriggerUrlSecret(params.id, params.hookId, actor),
);
