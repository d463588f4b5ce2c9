// GET /api/schedules/:id/silences → the alert silences in force on the schedule.
// POST /api/schedules/:id/silences { kind, minutes, reason } → mutes that alert kind's webhooks for a while;
// audited as "schedule.alerts_silence".
import { silenceItem } from "@/app/api/_lib/contract/answer-shapes";
import { z } from "zod";
import { apiRoute } from "../../../_lib/api-route";
import { getPool } from "@/core/db/pool";
import { listActiveSilences, silenceAlertKind, silenceInputSchema } from "@/core/alerts/alert-silences";

export const dynamic = "force-dynamic";

const params = z.object({ id: z.uuid() });

export const GET = apiRoute(
  {
    access: "viewer",
    scope: "alerts:read",
    object: { kind: "schedule", param: "id" },
    summary: "The alert silences in force on a schedule.",
    answer: z.object({ silences: z.array(silenceItem) }),
    params,
  },
  async ({ params: p }) => ({
    silences: await listActiveSilences(getPool(), p.id!),
  }),
);

export const POST = apiRoute(
  {
    access: "operator",
    scope: "alerts:ack",
    object: { kind: "schedule", param: "id" },
    summary: "Silence one alert kind's notifications on a schedule for a while (audited).",
    answer: z.object({ silence: silenceItem }),
    params,
    body: silenceInputSchema,
  },
  async ({ params: p, body, actor }) => ({
    silence: await silenceAlertKind(getPool(), p.id!, body, actor),
  }),
);
