// GET /api/alerts/summary[?team=<id>] → { open, unacknowledged, critical, newest } for the header badge (?team: one of
// the caller's teams, the header's team switcher, as the alerts list narrows).
// Workers evaluate alerts, so only the console can notice that none is left: when no worker is
// live it evaluates the "no live worker" rule itself (one evaluator at a time, like the workers)
// and, after answering, sends the webhooks that are due, since no alerter is running to send them.
import { z } from "zod";
import { narrowTeams, visibleTeamIds } from "@/core/teams/team-access";
import { iso } from "@/app/api/_lib/contract/answer-shapes";
import { after } from "next/server";
import { apiRoute } from "../../_lib/api-route";
import { hashedJson } from "../../_lib/conditional-json";
import { getPool } from "@/core/db/pool";
import { getEnv } from "@/core/env";
import { alertOptionsFromEnv, evaluateAlerts } from "@/core/alerts/evaluate-alerts";
import { getAlertSummary } from "@/core/alerts/get-alert-summary";
import { deliverDueWebhooks } from "@/core/alerts/webhook/deliver-due-webhooks";
import { webhookOptionsFromEnv } from "@/core/alerts/webhook/webhook-options";
import { getLogger } from "@/core/log";
import { countLiveWorkers } from "@/core/workers/list-workers";

export const dynamic = "force-dynamic";

export const GET = apiRoute(
  {
    access: "viewer",
    scope: "alerts:read",
    summary: "Open, unacknowledged and critical alert counts and the newest alert (the header badge).",
    answer: z.object({
      open: z.number(),
      unacknowledged: z.number(),
      critical: z.number(),
      newest: z.looseObject({ id: z.string(), kind: z.string(), severity: z.string(), message: z.string(), openedAt: iso }).nullable(),
    }),
    query: z.object({ team: z.uuid({ error: "team must be a team id" }).optional() }),
  },
  async ({ req, query, actor }) => {
    const pool = getPool();
    const env = getEnv();
    if ((await countLiveWorkers(pool, env.VIGIL_WORKER_DEAD_AFTER_MS)) === 0) {
      await evaluateAlerts(pool, { ...alertOptionsFromEnv(env), kinds: ["no_worker"] });
      const send = () =>
        deliverDueWebhooks(pool, webhookOptionsFromEnv(env, "vigil-console"), 4).then(
          (sent) =>
            sent.forEach((d) =>
              getLogger().info(
                { deliveryId: d.deliveryId, status: d.status, state: d.state, error: d.error },
                "alert webhook sent by the console (no live worker)",
              ),
            ),
          (err) => getLogger().error({ err }, "console could not send alert webhooks"),
        );
      try {
        after(send);
      } catch {
        // Outside a Next.js request (tests calling the handler directly): send in the background.
        void send();
      }
    }
    // The header badge polls it on every page: an unchanged summary is a 304.
    return hashedJson(req, await getAlertSummary(pool, narrowTeams(visibleTeamIds(actor), query.team)));
  },
);
