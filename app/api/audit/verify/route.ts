import { apiRoute } from "../../_lib/api-route";
import { getPool } from "@/core/db/pool";
import { verifyAudit } from "@/core/audit/verify-audit";

export const dynamic = "force-dynamic";

export const GET = apiRoute({ access: "viewer" }, async () => verifyAudit(getPool()));
