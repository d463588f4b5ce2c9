// GET /api/handlers   (viewer) → { handlers: HandlerListing[] } (core/handlers/handler-registry.ts), sorted by
//   name: every handler some worker ever advertised (plus the built-ins), each with its payload's JSON Schema and
//   how many live workers serve it now (0 = its runs wait until a worker that loads it starts).
import { z } from "zod";
import { apiRoute } from "../_lib/api-route";
import { getPool } from "@/core/db/pool";
import { getEnv } from "@/core/env";
import { listHandlers } from "@/core/handlers/handler-registry";

export const dynamic = "force-dynamic";

export const GET = apiRoute(
  {
    access: "viewer",
    scope: "metrics:read",
    summary: "Every handler some worker advertised, with its payload schema and live worker count.",
    answer: z.object({ handlers: z.array(z.looseObject({ name: z.string() })) }),
  },
  async () => ({
    handlers: await listHandlers(getPool(), { deadAfterMs: getEnv().VIGIL_WORKER_DEAD_AFTER_MS }),
  }),
);
