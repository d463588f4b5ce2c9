// POST /api/schedules/:id/trigger   (operator) body: { reason: string (required), payload?: object, dryRun?: boolean }
//   header Idempotency-Key (optional, 1..200 visible ASCII): a retried request with the same key and body returns
//   the run the first one created with replayed: true; the same key with a different body → 422 idempotency_key_reused.
//   → { dryRun, count, plannedAt: [ISO], runId: string|null, replayed } — one manual run, due now (also while paused),
//   enqueued by this request's transaction through the console's pg-boss client (no planner hop before it can start).
import { scheduleAction } from "@/app/api/_lib/contract/answer-shapes";
import { z } from "zod";
import { apiRoute } from "../../../_lib/api-route";
import { getConsoleBoss } from "@/core/queue/console-boss";
import { triggerNow, triggerNowInputSchema } from "@/core/schedules/trigger-now";

export const dynamic = "force-dynamic";

export const POST = apiRoute(
  {
    access: "operator",
    scope: "runs:trigger",
    object: { kind: "schedule", param: "id" },
    summary: "Trigger a schedule now as a manual run (Idempotency-Key header honoured; audited).",
    answer: scheduleAction.extend({ runId: z.string().nullable(), replayed: z.boolean() }),
    errors: ["idempotency_key_reused"],
    params: z.object({ id: z.uuid() }),
    body: triggerNowInputSchema,
  },
  async ({ req, params, body, actor }) =>
    triggerNow(params.id, body, actor, { idempotencyKey: req.headers.get("idempotency-key"), boss: await getConsoleBoss() }),
);
