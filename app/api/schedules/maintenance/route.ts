// GET  /api/schedules/maintenance   (viewer) → { maintenance: [{ id, tag (null: every schedule), reason, until, startedBy,
//      startedAt, pausedSchedules }] } — the open maintenance windows, newest first (the console's banner).
// POST /api/schedules/maintenance   (operator) body: { action: "pause" | "resume", tag?, reason (required to pause),
//      until?: ISO (pause: every schedule auto-resumes then), dryRun?: boolean }
//   → { action, dryRun, tag, maintenanceId, paused: [{ id, name, held }], skipped: [{ id, name, pausedBy, reason }],
//       resumed: [{ id, name, misfirePolicy, count, plannedAt, recordedPaused }], count }
//   pause: every live schedule of the scope that is not paused is paused (one audit row each + one for the action);
//   resume: exactly the schedules the window paused are resumed, each by its misfire policy; a dry run reports it.
//   409 maintenance_active (the scope is already in maintenance) / not_in_maintenance; 422 naming the field.
import { z } from "zod";
import { apiRoute } from "../../_lib/api-route";
import { getPool } from "@/core/db/pool";
import { listMaintenance, maintenanceAction } from "@/core/schedules/maintenance";

export const dynamic = "force-dynamic";

export const GET = apiRoute(
  {
    access: "viewer",
    scope: "schedules:read",
    summary: "Open maintenance windows, newest first.",
    answer: z.object({
      maintenance: z.array(z.looseObject({ id: z.string(), tag: z.string().nullable(), reason: z.string().nullable() })),
    }),
  },
  async () => ({ maintenance: await listMaintenance(getPool()) }),
);

export const POST = apiRoute(
  {
    access: "operator",
    scope: "schedules:write",
    summary: "Pause or resume every schedule (or those of a tag) for maintenance (dry run first).",
    answer: z.looseObject({ action: z.enum(["pause", "resume"]), dryRun: z.boolean(), count: z.number() }),
    errors: ["maintenance_active", "not_in_maintenance"],
    body: z.unknown(),
  },
  async ({ body, actor }) => maintenanceAction(body, actor),
);
