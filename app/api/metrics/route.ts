// GET /api/metrics → Prometheus text (prom-client), built per scrape from the database.
// Needs a viewer session or API token (`Authorization: Bearer …`), unless VIGIL_METRICS_PUBLIC=true.
import { z } from "zod";
import { apiRoute } from "../_lib/api-route";
import { getPool } from "@/core/db/pool";
import { getEnv } from "@/core/env";
import { collectMetrics } from "@/core/metrics/collect-metrics";

export const dynamic = "force-dynamic";

async function scrape(): Promise<Response> {
  const env = getEnv();
  const registry = await collectMetrics(getPool(), {
    deadAfterMs: env.VIGIL_WORKER_DEAD_AFTER_MS,
    windowSeconds: env.VIGIL_METRICS_WINDOW_SECONDS,
  });
  return new Response(await registry.metrics(), { headers: { "content-type": registry.contentType, "cache-control": "no-store" } });
}

const publicScrape = apiRoute(
  {
    access: "public",
    summary: "Prometheus metrics (text exposition format).",
    answer: z.string().describe("Prometheus text exposition format"),
    answerMedia: "text/plain",
  },
  scrape,
);
const protectedScrape = apiRoute(
  {
    access: "viewer",
    scope: "metrics:read",
    summary: "Prometheus metrics (text exposition format).",
    answer: z.string().describe("Prometheus text exposition format"),
    answerMedia: "text/plain",
  },
  scrape,
);

export const GET: typeof protectedScrape = Object.assign(
  (req: Parameters<typeof protectedScrape>[0], ctx: Parameters<typeof protectedScrape>[1]) =>
    getEnv().VIGIL_METRICS_PUBLIC ? publicScrape(req, ctx) : protectedScrape(req, ctx),
  { spec: protectedScrape.spec },
);
