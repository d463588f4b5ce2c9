// DELETE /api/schedules/:id/silences/:silenceId → ends a silence early; audited as "schedule.alerts_unsilence".
import { silenceItem } from "@/app/api/_lib/contract/answer-shapes";
import { z } from "zod";
import { apiRoute } from "../../../../_lib/api-route";
import { getPool } from "@/core/db/pool";
import { endAlertSilence } from "@/core/alerts/alert-silences";

export const dynamic = "force-dynamic";

export const DELETE = apiRoute(
  {
    access: "operator",
    scope: "alerts:ack",
    object: { kind: "schedule", param: "id" },
    summary: "End an alert silence early (audited).",
    answer: z.object({ silence: silenceItem }),
    params: z.object({ id: z.uuid(), silenceId: z.uuid() }),
  },
  async ({ params: p, actor }) => ({
    silence: await endAlertSilence(getPool(), p.id!, p.silenceId!, actor),
  }),
);
