// Liveness and readiness for load balancers and the console header. Public, so it says up or down
// and nothing more.
//   GET /api/health?probe=live  → 200 while the process serves requests (touches nothing else)
//   GET /api/health?probe=ready → 200 when the database answers, migrations are current and a worker
//                                 is live; 503 otherwise
//   GET /api/health             → the same parts for the header pill; 503 only when the database is down
// While the database is down both 503s carry the error every route answers then: code database_unavailable.
import { z } from "zod";
import { apiRoute, warnDatabaseUnavailable } from "../_lib/api-route";
import { hashedJson } from "../_lib/conditional-json";
import { getPool } from "@/core/db/pool";
import { getEnv } from "@/core/env";
import { DatabaseUnavailableError, isDatabaseUnavailable, toErrorResponse } from "@/core/errors";
import { getLogger } from "@/core/log";
import { checkReadiness } from "@/core/metrics/check-readiness";

export const dynamic = "force-dynamic";

const json = (body: unknown, status: number) => Response.json(body, { status, headers: { "cache-control": "no-store" } });

export const GET = apiRoute(
  {
    access: "public",
    summary: "Liveness and readiness (public): up, degraded or down, with its parts.",
    answer: z.looseObject({ status: z.enum(["up", "degraded", "down"]) }),
    query: z.object({ probe: z.enum(["live", "ready"]).optional() }),
  },
  async ({ req, query }) => {
    if (query.probe === "live") return json({ status: "up", live: true }, 200);
    const r = await checkReadiness(getPool(), getEnv().VIGIL_WORKER_DEAD_AFTER_MS, (err) =>
      // Details stay in the server log; the public answer is only up or down.
      isDatabaseUnavailable(err)
        ? warnDatabaseUnavailable(err, { path: "/api/health" })
        : getLogger().warn({ err }, "health check: a dependency is down"),
    );
    const parts = { database: r.database, migrations: r.migrations, worker: r.worker };
    if (query.probe === "ready") {
      const unavailable = r.database === "down" ? toErrorResponse(new DatabaseUnavailableError()).body : {};
      return json({ status: r.ready ? "up" : "down", ready: r.ready, ...parts, ...unavailable }, r.ready ? 200 : 503);
    }
    if (r.database === "down") {
      // The same 503 body every other route answers while the database is down, plus the parts for the pill.
      const { body } = toErrorResponse(new DatabaseUnavailableError());
      return json({ status: "down", live: true, ready: false, ...parts, ...body }, 503);
    }
    // Polled by every open page's header: an unchanged answer is a 304.
    return hashedJson(req, { status: r.ready ? "up" : "degraded", live: true, ready: r.ready, ...parts });
  },
);
