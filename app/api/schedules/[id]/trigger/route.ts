// POST /api/schedules/:id/trigger   (operator) body: { dryRun?: boolean, reason?: string }
//   → { dryRun, count: 1, plannedAt: [ISO now], runId: string|null } — one manual run, due now (also while paused).
import { z } from "zod";
import { apiRoute } from "../../../_lib/api-route";
import { triggerNow } from "@/core/schedules/trigger-now";

export const dynamic = "force-dynamic";

export const POST = apiRoute({ access: "operator", params: z.object({ id: z.uuid() }), body: z.unknown() }, async ({ params, body, actor }) =>
  triggerNow(params.id!, body, actor!),
);
