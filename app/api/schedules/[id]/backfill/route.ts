// POST /api/schedules/:id/backfill   (operator) body: { from: ISO, to: ISO (not in the future), dryRun?: boolean, reason? }
//   → { dryRun, count, plannedAt: ISO[] (runs enqueued, one at a time), fires: <fires in [from, to]>,
//       alreadyCovered: <fires left out: they ran or are pending> }
//   422 code backfill_too_large beyond 10,000 fires (split the range); 422 on from/to.
import { scheduleAction } from "@/app/api/_lib/contract/answer-shapes";
import { z } from "zod";
import { apiRoute } from "../../../_lib/api-route";
import { backfillSchedule, backfillInputSchema } from "@/core/schedules/backfill-schedule";

export const dynamic = "force-dynamic";

export const POST = apiRoute(
  {
    access: "operator",
    scope: "runs:trigger",
    object: { kind: "schedule", param: "id" },
    summary: "Backfill a schedule's fires in a past range (dry run first).",
    answer: scheduleAction.extend({ fires: z.number(), alreadyCovered: z.number() }),
    errors: ["backfill_too_large"],
    params: z.object({ id: z.uuid() }),
    body: backfillInputSchema,
  },
  async ({ params, body, actor }) => backfillSchedule(params.id, body, actor),
);
