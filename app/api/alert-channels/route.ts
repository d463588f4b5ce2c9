// GET  /api/alert-channels[?team=<id>]  (operator; ?team: one of the caller's teams, the header's team switcher) → { channels: [channel] } — secrets only as set / not set, never a value.
// POST /api/alert-channels  (team admin) body { name, type, settings, secrets, routing, enabled, team? } → { channel }:
//      in the team named (name or id), where the caller must be admin (default: its only such team; 422
//      team_required naming them when it has several). A channel takes only its team's alerts.
// Types: email (SMTP), pagerduty (Events API v2), teams (Adaptive Card), webhook (Vigil JSON), slack (text).
import { z } from "zod";
import { narrowTeams, visibleTeamIds } from "@/core/teams/team-access";
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
    query: z.object({ team: z.uuid({ error: "team must be a team id" }).optional() }),
  },
  async ({ query, actor }) => ({ channels: await listAlertChannels(getPool(), narrowTeams(visibleTeamIds(actor), query.team)) }),
);

export const POST = apiRoute(
  {
    // A team admin's route role is operator; the team check (admin there) is resolveTeamForCreate's.
    access: "operator",
    scope: "alerts:configure",
    body: channelInputSchema,
    summary: "Create an alert channel (email, PagerDuty, Teams, webhook, Slack) with its routing",
    answer: z.object({ channel: alertChannelViewSchema }),
    errors: ["team_required", "unknown_team", "channel_name_taken"],
  },
  async ({ body, actor }) => ({ channel: await createAlertChannel(body, actor) }),
);
