// GET /api/schedules/export?format=yaml|json&tag=&name=   (viewer) → the schedules document (core/schedules/as-code/
//   schedules-document.ts): every live schedule, or those having every `tag` / named `name` (both repeatable), keys
//   sorted, defaults left out, no ids or revisions. YAML by default. A viewer's export has credential-looking payload
//   values masked (listed in the YAML header and in X-Vigil-Masked); apply refuses them.
import { z } from "zod";
import { objectRole, visibleTeamIds } from "@/core/teams/team-access";
import { apiRoute } from "../../_lib/api-route";
import { getPool } from "@/core/db/pool";
import { exportSchedules, renderExport } from "@/core/schedules/as-code/export-schedules";
import { SCHEDULE_NAME_PATTERN, tagListSchema } from "@/core/schedules/schedule-input";

export const dynamic = "force-dynamic";

const nameList = z
  .string()
  .transform((s) =>
    s
      .split(",")
      .map((x) => x.trim())
      .filter(Boolean),
  )
  .pipe(z.array(z.string().regex(SCHEDULE_NAME_PATTERN, { error: "name must be a schedule name" })).max(1000));

export const GET = apiRoute(
  {
    access: "viewer",
    scope: "schedules:read",
    summary: "Export schedules as a document (YAML by default, or JSON) to apply elsewhere.",
    answer: z.string().describe("the schedules document, YAML or JSON"),
    answerMedia: "application/yaml",
    listParams: ["tag", "name"],
    query: z.object({
      format: z.enum(["yaml", "json"], { error: "format must be yaml or json" }).default("yaml"),
      tag: tagListSchema.optional(),
      name: nameList.optional(),
    }),
  },
  async ({ query, actor }) => {
    const result = await exportSchedules(getPool(), actor.role, {
      tags: query.tag,
      names: query.name,
      teamIds: visibleTeamIds(actor),
      roleFor: (teamId) => objectRole(actor, teamId),
    });
    const text = renderExport(result, query.format);
    return new Response(text, {
      status: 200,
      headers: {
        "content-type": query.format === "json" ? "application/json; charset=utf-8" : "application/yaml; charset=utf-8",
        "content-disposition": `attachment; filename="schedules.${query.format}"`,
        "cache-control": "no-store",
        "x-vigil-masked": String(result.masked.length),
      },
    });
  },
);
