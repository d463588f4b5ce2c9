// GET /api/metrics → Prometheus text (prom-client), built per scrape from the database.
// Needs a viewer session or API token (`Authorization: Bearer …`), unless VIGIL_METRICS_PUBLIC=true. Every series
// about a schedule carries its `team`; a caller who sees only some teams (a team member, a token bound to a team)
// gets only those teams' schedule series; the global admin and a public scrape get every team's.
import type { Actor } from "@/core/auth/roles";
import { visibleTeamIds } from "@/core/teams/team-access";
import { z } from "zod";
import { apiRoute } from "../_lib/api-route";
import { getPool } from "@/core/db/pool";
import { getEnv } from "@/core/env";
import { collectMetrics } from "@/core/metrics/collect-metrics";

export const dynamic = "force-dynamic";

async function scrape({ actor }: { actor: Actor | null }): Promise<Response> {
  const env = getEnv();
  const registry = await collectMetrics(getPool(), {
    deadAfterMs: env.VIGIL_WORKER_DEAD_AFTER_MS,
    windowSeconds: env.VIGIL_METRICS_WINDOW_SECONDS,
    teamIds: actor && !env.VIGIL_METRICS_PUBLIC ? visibleTeamIds(actor) : null,
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
