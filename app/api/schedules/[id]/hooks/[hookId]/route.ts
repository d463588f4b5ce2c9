// DELETE /api/schedules/:id/hooks/:hookId   (operator) → { triggerUrl } — revoked: its address answers 404 from now on.
import { z } from "zod";
import { apiRoute } from "../../../../_lib/api-route";
import { revokeTriggerUrl, triggerUrlListingSchema } from "@/core/trigger-urls/trigger-url-store";

export const dynamic = "force-dynamic";

export const DELETE = apiRoute(
  {
    access: "operator",
    scope: "schedules:write",
    object: { kind: "schedule", param: "id" },
    params: z.object({ id: z.uuid(), hookId: z.uuid() }),
    summary: "Revoke a trigger URL",
    answer: z.object({ triggerUrl: triggerUrlListingSchema }),
  },
  async ({ params, actor }) => revokeTriggerUrl(params.id, params.hookId, actor),
);
