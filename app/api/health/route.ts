// Liveness and readiness for load balancers and the console header. Public, so it says up or down
// and nothing more.
//   GET /api/health?probe=live  → 200 while the process serves requests (touches nothing else)
//   GET /api/health?probe=ready → 200 when the database answers, migrations are current and a worker
//                                 is live; 503 otherwise
//   GET /api/health             → the same parts for the header pill; 503 only when the database is down
import { z } from "zod";
import { apiRoute } from "../_lib/api-route";
import { getPool } from "@/core/db/pool";
import { getEnv } from "@/core/env";
import { getLogger } from "@/core/log";
import { checkReadiness } from "@/core/metrics/check-readiness";

export const dynamic = "force-dynamic";

const json = (body: unknown, status: number) =>
  Response.json(body, { status, headers: { "cache-control": "no-store" } });

export const GET = apiRoute({ access: "public", query: z.object({ probe: z.enum(["live", "ready"]).optional() }) }, async ({ query }) => {
  if (query.probe === "live") return json({ status: "up", live: true }, 200);
  const r = await checkReadiness(getPool(), getEnv().VIGIL_WORKER_DEAD_AFTER_MS, (err) =>
    // Details stay in the server log; the public answer is only up or down.
    getLogger().warn({ err }, "health check: a dependency is down"),
  );
  const parts = { database: r.database, migrations: r.migrations, worker: r.worker };
  if (query.probe === "ready") return json({ status: r.ready ? "up" : "down", ready: r.ready, ...parts }, r.ready ? 200 : 503);
  return json({ status: r.ready ? "up" : r.database === "up" ? "degraded" : "down", live: true, ready: r.ready, ...parts }, r.database === "up" ? 200 : 503);
});
