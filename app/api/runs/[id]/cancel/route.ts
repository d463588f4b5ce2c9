import { z } from "zod";
import { apiRoute } from "../../../_lib/api-route";
import { cancelRun } from "@/core/runs/operate/cancel-run";

export const dynamic = "force-dynamic";

const body = z.strictObject({
  reason: z.string({ error: "reason must be text" }).trim().max(500, { error: "reason must be at most 500 characters" }).default(""),
});

/**
 * Cancels a queued, running or zombie run. 200 with outcome "cancelled" (ended now) or
 * "cancel_requested" (its live worker was told; follow GET /api/runs/:id for the stages).
 * A finished run → 409.
 */
export const POST = apiRoute(
  {
    access: "operator",
    scope: "runs:cancel",
    object: { kind: "run", param: "id" },
    summary: "Cancel a queued, running or zombie run (audited).",
    answer: z.object({ runId: z.string(), outcome: z.enum(["cancelled", "cancel_requested"]), state: z.string() }),
    errors: ["run_finished"],
    params: z.object({ id: z.uuid() }),
    body,
  },
  async ({ params, body, actor }) => cancelRun(params.id, actor, body.reason),
);
