// GET /api/overview → what needs attention, for the header indicator.
// Response: RunsOverview (core/runs/read/overview.ts; dates as ISO strings). Conditional: 304 to a current ETag.
import { apiRoute } from "../_lib/api-route";
import { conditionalJson } from "../_lib/conditional-json";
import { getPool } from "@/core/db/pool";
import { getRunsOverview } from "@/core/runs/read/overview";
import { ATTENTION_WINDOW_MINUTES } from "@/core/console/clock-boundaries";

export const dynamic = "force-dynamic";

export const GET = apiRoute({ access: "viewer" }, async ({ req }) =>
  conditionalJson(req, "overview", () => getRunsOverview(getPool(), ATTENTION_WINDOW_MINUTES), { clock: "attention" }),
);
