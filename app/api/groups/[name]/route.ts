// PATCH /api/groups/:name   (operator) body: { concurrencyLimit?: 1–10000, startRateLimit?: {maxStarts: 1–10000,
//     perSeconds: 1–86400} | null (null removes it), reason? } → { group } as GET /api/groups lists it.
//   Audited as group.limits_change (before/after). 404 unknown group; 422 naming the field.
import { z } from "zod";
import { apiRoute } from "../../_lib/api-route";
import { setGroupLimits } from "@/core/groups/set-group-limits";

export const dynamic = "force-dynamic";

export const PATCH = apiRoute(
  {
    access: "operator",
    scope: "schedules:write",
    object: { kind: "concurrency_group", param: "name" },
    summary: "Change a concurrency group's limits (audited).",
    answer: z.object({
      group: z.looseObject({ name: z.string(), teamId: z.string(), team: z.string(), concurrencyLimit: z.number().nullable() }),
    }),
    params: z.object({ name: z.string().min(1).max(80) }),
    body: z.unknown(),
  },
  async ({ params, body, actor }) => ({ group: await setGroupLimits(params.name, body, actor) }),
);
