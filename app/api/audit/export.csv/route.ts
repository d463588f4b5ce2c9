// The filtered audit trail as a CSV download, streamed. Exporting is itself recorded: who took a
// copy of the trail, and of which part of it.
import { z } from "zod";
import { narrowTeams, visibleTeamIds } from "@/core/teams/team-access";
import { apiRoute } from "../../_lib/api-route";
import { getPool } from "@/core/db/pool";
import { getLogger } from "@/core/log";
import { auditFilterSchema } from "@/core/audit/audit-filter";
import { exportAuditCsv } from "@/core/audit/export-audit-csv";
import { recordAudit } from "@/core/audit/record-audit";

export const dynamic = "force-dynamic";

export const GET = apiRoute(
  {
    access: "viewer",
    scope: "audit:read",
    summary: "The filtered audit trail as a CSV download (the export is itself audited).",
    answer: z.string().describe("CSV, one audit event per line after the header"),
    answerMedia: "text/csv",
    query: auditFilterSchema,
  },
  async ({ query, actor }) => {
    await recordAudit(getPool(), { actor: actor, action: "audit.export", targetType: "audit", after: { filter: query } });
    const rows = exportAuditCsv(getPool(), {
      ...query,
      mask: actor.role === "viewer",
      teamIds: narrowTeams(visibleTeamIds(actor, "audit"), query.team),
    });
    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const next = await rows.next();
          if (next.done) controller.close();
          else controller.enqueue(encoder.encode(next.value));
        } catch (err) {
          getLogger().error({ err }, "audit CSV export failed mid-stream");
          controller.error(err);
        }
      },
      async cancel() {
        await rows.return(undefined);
      },
    });
    return new Response(body, {
      headers: {
        "content-type": "text/csv; charset=utf-8",
        "content-disposition": `attachment; filename="vigil-audit.csv"`,
        "cache-control": "no-store",
        "x-content-type-options": "nosniff",
      },
    });
  },
);
