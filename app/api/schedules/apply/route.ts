// POST /api/schedules/apply   (operator) body: { document: <YAML or JSON text, or the object>, dryRun?: boolean (default
//   TRUE: nothing changes unless dryRun is false), prune?: boolean (delete managed schedules the document leaves out),
//   source?: string (the file's name, recorded as managed_by) }
//   → { dryRun, source, changes: [{ op: create|change|pause|delete, name, id?, fields?: [{ field, from, to }], adopt? }],
//       unchanged: [names], notInDocument: [managed names kept without prune], leftPaused: [names] }
//   Applied in one transaction, each change audited as the caller (the API token) plus one schedules.apply row.
//   422 naming `schedules.<name>.<field>` (or `document…` for the file's structure, e.g. a duplicate name).
import { z } from "zod";
import { apiRoute } from "../../_lib/api-route";
import { applySchedules } from "@/core/schedules/as-code/apply-schedules";

export const dynamic = "force-dynamic";

export const POST = apiRoute(
  {
    access: "operator",
    scope: "schedules:apply",
    summary: "Apply a schedules document (YAML or JSON): the diff, applied only when dryRun is false.",
    answer: z.looseObject({
      dryRun: z.boolean(),
      changes: z.array(z.looseObject({ op: z.enum(["create", "change", "pause", "delete"]), name: z.string() })),
      unchanged: z.array(z.string()),
      notInDocument: z.array(z.string()),
      leftPaused: z.array(z.string()),
    }),
    body: z.unknown(),
  },
  async ({ body, actor }) => applySchedules(body, actor),
);
