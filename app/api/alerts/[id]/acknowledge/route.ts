// POST /api/alerts/:id/acknowledge { note? } → the alert, acknowledged; audited as "alert.acknowledge"
// in the same transaction. 409 when it was already acknowledged, or already resolved (nothing left to handle).
import { alertItem } from "@/app/api/_lib/contract/answer-shapes";
import { z } from "zod";
import { apiRoute } from "../../../_lib/api-route";
import { getPool } from "@/core/db/pool";
import { acknowledgeAlert } from "@/core/alerts/acknowledge-alert";

export const dynamic = "force-dynamic";

const body = z.strictObject({ note: z.string().trim().max(500, "at most 500 characters").optional() });

export const POST = apiRoute(
  {
    access: "operator",
    scope: "alerts:ack",
    object: { kind: "alert", param: "id" },
    summary: "Acknowledge an open alert (audited); 409 when already acknowledged or resolved.",
    answer: z.object({ alert: alertItem }),
    errors: ["already_acknowledged", "already_resolved"],
    params: z.object({ id: z.uuid() }),
    body,
  },
  async ({ params, body: b, actor }) => ({
    alert: await acknowledgeAlert(getPool(), params.id, actor, b.note || null),
  }),
);
