import { apiRoute } from "../_lib/api-route";
import { getPool } from "@/core/db/pool";
import { auditListQuerySchema } from "@/core/audit/audit-filter";
import { listAudit } from "@/core/audit/list-audit";

export const dynamic = "force-dynamic";

export const GET = apiRoute({ access: "viewer", query: auditListQuerySchema }, async ({ query, actor }) =>
  listAudit(getPool(), { ...query, mask: actor.role === "viewer" }),
);
