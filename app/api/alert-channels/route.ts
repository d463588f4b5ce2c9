// GET  /api/alert-channels  (operator) → { channels: [channel] } — secrets only as set / not set, never a value.
// POST /api/alert-channels  (admin) body { name, type, settings, secrets, routing, enabled } → { channel }.
// Types: email (SMTP), pagerduty (Events API v2), teams (Adaptive Card), webhook (Vigil JSON), slack (text).
import { z } from "zod";
import { visibleTeamIds } from "@/core/teams/team-access";
import { apiRoute } from "../_lib/api-route";
import { getPool } from "@/core/db/pool";
import { alertChannelViewSchema, channelInputSchema } from "@/core/alerts/channels/alert-channel-types";
import { createAlertChannel, listAlertChannels } from "@/core/alerts/channels/alert-channel-store";

export const dynamic = "force-dynamic";

export const GET = apiRoute(
  {
    access: "operator",
    scope: "alerts:configure",
    summary: "List the alert channels (no secret values)",
    answer: z.object({ channels: z.array(alertChannelViewSchema) }),
  },
  async ({ actor }) => ({ channels: await listAlertChannels(getPool(), visibleTeamIds(actor)) }),
);

export const POST = apiRoute(
  {
    access: "admin",
    scope: "alerts:configure",
    body: channelInputSchema,
    summary: "Create an alert channel (email, PagerDuty, Teams, webhook, Slack) with its routing",
    answer: z.object({ channel: alertChannelViewSchema }),
  },
  async ({ body, actor }) => ({ channel: await createAlertChannel(body, actor) }),
);
