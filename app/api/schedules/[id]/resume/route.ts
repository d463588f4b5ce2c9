// POST /api/schedules/:id/resume   (operator) body: { dryRun?: boolean }
//   → { dryRun, count, plannedAt: ISO[] (fires of the pause the misfire policy runs now, one at a time),
//       recordedPaused: <fires of the pause recorded paused>, misfirePolicy }
//   A dry run changes nothing and reports exactly what a resume would enqueue. 409 code not_paused.
import { scheduleAction } from "@/app/api/_lib/contract/answer-shapes";
import { z } from "zod";
import { apiRoute } from "../../../_lib/api-route";
import { resumeSchedule, resumeInputSchema } from "@/core/schedules/resume-schedule";

export const dynamic = "force-dynamic";

export const POST = apiRoute(
  {
    access: "operator",
    scope: "schedules:write",
    object: { kind: "schedule", param: "id" },
    summary: "Resume a paused schedule; its misfire policy decides what of the pause runs now.",
    answer: scheduleAction.extend({ recordedPaused: z.number(), misfirePolicy: z.string() }),
    errors: ["not_paused"],
    params: z.object({ id: z.uuid() }),
    body: resumeInputSchema,
  },
  async ({ params, body, actor }) => resumeSchedule(params.id, body, actor),
);
