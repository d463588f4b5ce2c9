// POST /api/schedules/preview   (viewer) body: { trigger, count?: 1..500 (default 10), from?: ISO }
//   → { now, description, fires: [{ at (ISO), localTime ("2026-03-29 03:00:00", in the trigger's zone), utcOffset
//       ("+02:00"), dst?: { kind: "gap"|"repeat", note, skipped?: true } }] } — counted from the database clock.
//   422 naming trigger fields (invalid cron, unknown zone, interval ≤ 0, one-off in the past).
import { z } from "zod";
import { apiRoute } from "../../_lib/api-route";
import { previewTrigger } from "@/core/schedules/preview-trigger";

export const dynamic = "force-dynamic";

export const POST = apiRoute({ access: "viewer", body: z.unknown() }, async ({ body }) => previewTrigger(body));
