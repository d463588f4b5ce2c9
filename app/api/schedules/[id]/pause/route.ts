// POST /api/schedules/:id/pause   (operator) body: { reason (required), until?: ISO (auto-resume), dryRun?: boolean }
//   → { dryRun, count: 0, plannedAt: [], held: <not-started runs now held>, pausedUntil: ISO|null }
//   409 code already_paused; 422 on reason/until.
import { iso, scheduleAction } from "@/app/api/_lib/contract/answer-shapes";
import { z } from "zod";
import { apiRoute } from "../../../_lib/api-route";
import { pauseSchedule, pauseInputSchema } from "@/core/schedules/pause-schedule";

export const dynamic = "force-dynamic";

export const POST = apiRoute(
  {
    access: "operator",
    scope: "schedules:write",
    object: { kind: "schedule", param: "id" },
    summary: "Pause a schedule, optionally until a time (audited).",
    answer: scheduleAction.extend({ held: z.number(), pausedUntil: iso.nullable() }),
    errors: ["already_paused"],
    params: z.object({ id: z.uuid() }),
    body: pauseInputSchema,
  },
  async ({ params, body, actor }) => pauseSchedule(params.id, body, actor),
);
