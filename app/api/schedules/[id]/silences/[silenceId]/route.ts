// DELETE /api/schedules/:id/silences/:silenceId → ends a silence early; audited as "schedule.alerts_unsilence".
import { z } from "zod";
import { apiRoute } from "../../../../_lib/api-route";
import { getPool } from "@/core/db/pool";
import { endAlertSilence } from "@/core/alerts/alert-silences";

export const dynamic = "force-dynamic";

export const DELETE = apiRoute(
  { access: "operator", params: z.object({ id: z.uuid(), silenceId: z.uuid() }) },
  async ({ params: p, actor }) => ({
    silence: await endAlertSilence(getPool(), p.id!, p.silenceId!, actor),
  }),
);
