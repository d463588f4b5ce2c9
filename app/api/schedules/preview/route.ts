// POST /api/schedules/preview   (viewer) body: { trigger, count?: 1..500 (default 10), from?: ISO }
//   → PreviewResult (core/schedules/preview-trigger.ts) — counted from the database clock.
//   422 naming trigger fields (invalid cron, unknown zone, interval ≤ 0, one-off in the past).
import { iso } from "@/app/api/_lib/contract/answer-shapes";
import { z } from "zod";
import { apiRoute } from "../../_lib/api-route";
import { getPool } from "@/core/db/pool";
import { previewInputSchema, previewTrigger } from "@/core/schedules/preview-trigger";

export const dynamic = "force-dynamic";

export const POST = apiRoute(
  {
    access: "viewer",
    scope: "schedules:read",
    summary: "The next fire times of a trigger, counted from the database clock.",
    answer: z.looseObject({
      now: iso,
      description: z.string(),
      fires: z.array(z.looseObject({ at: iso, localTime: z.string(), utcOffset: z.string() })),
    }),
    body: previewInputSchema,
  },
  async ({ body }) => previewTrigger(getPool(), body),
);
