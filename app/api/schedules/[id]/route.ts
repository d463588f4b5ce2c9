// GET    /api/schedules/:id   (viewer) → { schedule: ScheduleListItem } (same shape as one entry of GET /api/schedules)
// PATCH  /api/schedules/:id   (operator) body: any subset of the schedule fields + required `revision` (the one you
//        loaded) → { schedule: Schedule }; 409 code stale_revision when someone saved in between; 422 naming fields.
//        Editing the trigger, dates or calendars re-plans: not-started future runs the new plan does not run end
//        cancelled (superseded). With `dryRun: true` in the body: → { dryRun, changed, replans, before, after,
//        superseded } (the next fires old vs new, and the rows that would be superseded), writing nothing.
// DELETE /api/schedules/:id?revision=&reason=   (operator) → { id, deletedAt, cancelledRuns } (soft delete; 409
//        stale_revision when revision is given and stale).
import { iso, scheduleItem, scheduleListItem } from "@/app/api/_lib/contract/answer-shapes";
import { z } from "zod";
import { apiRoute } from "../../_lib/api-route";
import { getPool } from "@/core/db/pool";
import { deleteSchedule } from "@/core/schedules/delete-schedule";
import { getScheduleView } from "@/core/schedules/list-schedules";
import { scheduleUpdateSchema } from "@/core/schedules/schedule-input";
import { previewScheduleEdit, updateSchedule } from "@/core/schedules/update-schedule";
import { objectRole } from "@/core/teams/team-access";
import { payloadForRole, plainCredentialWarnings } from "@/core/secrets/mask-credentials";

const plannedFire = z.looseObject({
  nominalAt: iso,
  plannedAt: iso,
  fate: z.enum(["run", "excluded", "paused", "ended", "not_started", "dst_skipped"]),
  reason: z.string().nullable(),
});
const editPreviewAnswer = z.looseObject({
  dryRun: z.literal(true),
  changed: z.array(z.string()),
  replans: z.boolean(),
  before: z.array(plannedFire),
  after: z.array(plannedFire),
  superseded: z.array(z.object({ id: z.string(), plannedAt: iso, nominalAt: iso, state: z.string() })),
});

export const dynamic = "force-dynamic";

const params = z.object({ id: z.uuid() });

// A viewer sees credential-looking payload values masked (core/secrets/mask-credentials.ts); a masked value sent
// back in a PATCH means "unchanged".
export const GET = apiRoute(
  {
    access: "viewer",
    scope: "schedules:read",
    object: { kind: "schedule", param: "id" },
    summary: "One schedule with its next fire, last run and recent counts.",
    answer: z.object({ schedule: scheduleListItem }),
    params,
  },
  async ({ params, actor }) => {
    const schedule = await getScheduleView(getPool(), params.id);
    return { schedule: { ...schedule, payload: payloadForRole(objectRole(actor, schedule.teamId), schedule.payload) } };
  },
);

export const PATCH = apiRoute(
  {
    access: "operator",
    scope: "schedules:write",
    object: { kind: "schedule", param: "id" },
    summary:
      "Change a schedule (send the revision you loaded; audited), or with dryRun: true see the next fires before/after and the planned runs it would supersede.",
    answer: z.union([z.object({ schedule: scheduleItem, warnings: z.array(z.unknown()) }), editPreviewAnswer]),
    errors: ["stale_revision", "name_taken", "dependency_cycle"],
    params,
    body: scheduleUpdateSchema,
  },
  async ({ params, body, actor }) => {
    if (body.dryRun) return previewScheduleEdit(params.id, body, actor);
    const schedule = await updateSchedule(params.id, body, actor);
    return { schedule, warnings: plainCredentialWarnings(schedule.payload) };
  },
);

export const DELETE = apiRoute(
  {
    access: "operator",
    scope: "schedules:write",
    object: { kind: "schedule", param: "id" },
    summary: "Delete a schedule (soft delete; audited).",
    answer: z.looseObject({ id: z.string(), deletedAt: iso, cancelledRuns: z.number() }),
    errors: ["stale_revision", "schedule_has_followers"],
    params,
    query: z.object({
      revision: z.coerce.number({ error: "revision must be a number" }).int().min(1).optional(),
      reason: z.string().max(500).optional(),
    }),
  },
  async ({ params, query, actor }) => deleteSchedule(params.id, actor, { revision: query.revision, reason: query.reason ?? null }),
);
