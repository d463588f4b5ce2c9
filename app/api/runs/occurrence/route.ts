// GET /api/runs/occurrence?scheduleId=&plannedAt=<epoch ms>   (viewer) → { id } of the scheduled run planned then.
// The timeline opens scheduled runs through it (its answer carries ids only for manual and backfill runs).
import { z } from "zod";
import { apiRoute } from "../../_lib/api-route";
import { getPool } from "@/core/db/pool";
import { findOccurrence } from "@/core/runs/read/find-occurrence";

export const dynamic = "force-dynamic";

export const GET = apiRoute(
  {
    access: "viewer",
    scope: "runs:read",
    object: { kind: "schedule", query: "scheduleId" },
    summary: "The run of a schedule planned at a given instant.",
    answer: z.object({ id: z.string() }),
    query: z.object({
      scheduleId: z.uuid({ error: "scheduleId must be a schedule id (UUID)" }),
      plannedAt: z.coerce
        .number({ error: "plannedAt must be epoch milliseconds" })
        .int({ error: "plannedAt must be whole epoch milliseconds" }),
    }),
  },
  async ({ query }) => findOccurrence(getPool(), query.scheduleId, query.plannedAt),
);
