// GET    /api/schedules/:id   (viewer) → { schedule: ScheduleListItem } (same shape as one entry of GET /api/schedules)
// PATCH  /api/schedules/:id   (operator) body: any subset of the schedule fields + required `revision` (the one you
//        loaded) → { schedule: Schedule }; 409 code stale_revision when someone saved in between; 422 naming fields.
//        Editing the trigger re-plans: not-started future runs the new trigger does not fire end cancelled.
// DELETE /api/schedules/:id?revision=&reason=   (operator) → { id, deletedAt, cancelledRuns } (soft delete; 409
//        stale_revision when revision is given and stale).
import { z } from "zod";
import { apiRoute } from "../../_lib/api-route";
import { deleteSchedule } from "@/core/schedules/delete-schedule";
import { getScheduleView } from "@/core/schedules/list-schedules";
import { updateSchedule } from "@/core/schedules/update-schedule";

export const dynamic = "force-dynamic";

const params = z.object({ id: z.uuid() });

export const GET = apiRoute({ access: "viewer", params }, async ({ params }) => ({ schedule: await getScheduleView(params.id!) }));

export const PATCH = apiRoute({ access: "operator", params, body: z.unknown() }, async ({ params, body, actor }) => ({
  schedule: await updateSchedule(params.id!, body, actor!),
}));

export const DELETE = apiRoute(
  {
    access: "operator",
    params,
    query: z.object({
      revision: z.coerce.number({ error: "revision must be a number" }).int().min(1).optional(),
      reason: z.string().max(500).optional(),
    }),
  },
  async ({ params, query, actor }) => deleteSchedule(params.id!, actor!, { revision: query.revision, reason: query.reason ?? null }),
);
