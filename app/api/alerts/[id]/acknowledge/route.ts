// POST /api/alerts/:id/acknowledge { note? } → the alert, acknowledged; audited as "alert.acknowledge"
// in the same transaction. 409 when it was already acknowledged, or already resolved (nothing left to handle).
import { z } from "zod";
import { apiRoute } from "../../../_lib/api-route";
import { getPool } from "@/core/db/pool";
import { acknowledgeAlert } from "@/core/alerts/acknowledge-alert";

export const dynamic = "force-dynamic";

const body = z.strictObject({ note: z.string().trim().max(500, "at most 500 characters").optional() });

export const POST = apiRoute({ access: "operator", params: z.object({ id: z.uuid() }), body }, async ({ params, body: b, actor }) => ({
  alert: await acknowledgeAlert(getPool(), params.id, actor, b.note || null),
}));
