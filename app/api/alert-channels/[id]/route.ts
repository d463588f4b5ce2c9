// GET    /api/alert-channels/:id  (admin of its team) → { channel }
// PUT    /api/alert-channels/:id  (admin of its team) body as POST /api/alert-channels → { channel }; a secret left out
//        keeps its value; `team`, when given, must be the channel's own (channels do not move between teams).
// DELETE /api/alert-channels/:id  (admin of its team) → { id, deleted } — its secrets and queued deliveries go with it.
import { z } from "zod";
import { apiRoute } from "../../_lib/api-route";
import { getPool } from "@/core/db/pool";
import { alertChannelViewSchema, channelInputSchema } from "@/core/alerts/channels/alert-channel-types";
import {
  deleteAlertChannel,
  getAlertChannelRowOrThrow,
  toChannelView,
  updateAlertChannel,
} from "@/core/alerts/channels/alert-channel-store";

export const dynamic = "force-dynamic";

const params = z.object({ id: z.uuid() });
const answer = z.object({ channel: alertChannelViewSchema });

export const GET = apiRoute(
  {
    access: "operator",
    scope: "alerts:configure",
    object: { kind: "alert_channel", param: "id", need: "admin" },
    params,
    summary: "Show one alert channel (no secret values)",
    answer,
  },
  async ({ params }) => ({
    channel: toChannelView(await getAlertChannelRowOrThrow(getPool(), params.id)),
  }),
);

export const PUT = apiRoute(
  {
    access: "operator",
    scope: "alerts:configure",
    object: { kind: "alert_channel", param: "id", need: "admin" },
    params,
    body: channelInputSchema,
    summary: "Change an alert channel's settings, secrets or routing",
    answer,
    errors: ["channel_team_fixed", "channel_name_taken"],
  },
  async ({ params, body, actor }) => ({ channel: await updateAlertChannel(params.id, body, actor) }),
);

export const DELETE = apiRoute(
  {
    access: "operator",
    scope: "alerts:configure",
    object: { kind: "alert_channel", param: "id", need: "admin" },
    params,
    summary: "Delete an alert channel and its secrets",
    answer: z.object({ id: z.string(), deleted: z.literal(true) }),
  },
  async ({ params, actor }) => deleteAlertChannel(params.id, actor),
);
