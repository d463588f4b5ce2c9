// GET /api/metrics → Prometheus text, built per scrape from the database (core/metrics/collect-metrics.ts).
// Needs a viewer session or API token (`Authorization: Bearer …`), unless VIGIL_METRICS_PUBLIC=true.
import { gzipSync } from "node:zlib";
import { apiRoute } from "../_lib/api-route";
import { getPool } from "@/core/db/pool";
import { getEnv } from "@/core/env";
import { acceptsGzip } from "@/core/http/accepts-gzip";
import { collectMetrics } from "@/core/metrics/collect-metrics";

export const dynamic = "force-dynamic";

// Prometheus asks for gzip. The answer is compressed here, in one synchronous call at level 1, rather than by Next's
// compression middleware: that one deflates the ~210 KB of a 1,000-schedule scrape in 16 KB steps on libuv's thread
// pool, and on a busy machine every step waits for a core (measured at load ~15: p50 16 ms, p95 104 ms for the same
// answer that takes 1.3 ms, p95 26 ms, compressed here; README "Metrics and their cardinality"). Level 1 costs ~10 %
// more bytes than level 6 on this text. An answer that already has a Content-Encoding is left alone by Next.
const GZIP_LEVEL = 1;

async function scrape(req: Request): Promise<Response> {
  const env = getEnv();
  const registry = await collectMetrics(getPool(), {
    deadAfterMs: env.VIGIL_WORKER_DEAD_AFTER_MS,
    windowSeconds: env.VIGIL_METRICS_WINDOW_SECONDS,
  });
  const text = await registry.metrics();
  const headers: Record<string, string> = { "content-type": registry.contentType, "cache-control": "no-store", vary: "Accept-Encoding" };
  if (!acceptsGzip(req.headers.get("accept-encoding"))) return new Response(text, { headers });
  return new Response(gzipSync(text, { level: GZIP_LEVEL }), { headers: { ...headers, "content-encoding": "gzip" } });
}

const publicScrape = apiRoute({ access: "public" }, ({ req }) => scrape(req));
const protectedScrape = apiRoute({ access: "viewer" }, ({ req }) => scrape(req));

export const GET: typeof protectedScrape = (req, ctx) =>
  getEnv().VIGIL_METRICS_PUBLIC ? publicScrape(req, ctx) : protectedScrape(req, ctx);
