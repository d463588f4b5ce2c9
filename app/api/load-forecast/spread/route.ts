// POST /api/load-forecast/spread   (operator) body: { by: "group" | "tag", key, window?: "24h" | "7d", keep?: [schedule id],
//      dryRun?: boolean (default true) }
//   → { dryRun, window, by, key, moved: [{ id, name, from, to, change }], kept: [{ id, name, reason }],
//       before: { curve, groups, bursts }, after: { curve, groups, bursts }, applied }
//   Proposes hashed minutes / interval phases for the group's or tag's schedules (core/load/spread-offsets.ts) with
//   the load curve before and after; dryRun false edits them (each audited as schedule.edit, the action as
//   schedules.spread). 422 naming the field (no schedule in the scope, bad input); 409 when a schedule changed.
import { z } from "zod";
import { apiRoute } from "../../_lib/api-route";
import { spreadLoad, spreadResultSchema } from "@/core/load/spread-load";

export const dynamic = "force-dynamic";

export const POST = apiRoute(
  {
    access: "operator",
    scope: "schedules:write",
    body: z.unknown(),
    summary: "Propose (dry run, the default) or apply hashed per-schedule minutes that spread a group's or tag's load",
    answer: spreadResultSchema,
  },
  async ({ body, actor }) => spreadLoad(body, actor),
);
