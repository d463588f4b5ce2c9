import { z } from "zod";
import { apiRoute } from "../../_lib/api-route";
import { getPool } from "@/core/db/pool";
import { getRunTrace } from "@/core/runs/get-run";

export const dynamic = "force-dynamic";

/** One run's single trace: run, schedule name, events in order, attempts, logs, timings. */
export const GET = apiRoute({ access: "viewer", params: z.object({ id: z.uuid() }) }, async ({ params }) => getRunTrace(getPool(), params.id!));
