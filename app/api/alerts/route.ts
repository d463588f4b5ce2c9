// GET /api/alerts?state=open|all&scheduleId=&tag=&kind=&limit=&cursor= (tag: repeatable; alerts of schedules having every tag) → { alerts: [...], nextCursor }
// Newest first; each alert with its schedule's name and webhook deliveries (every attempt).
import { alertItem } from "@/app/api/_lib/contract/answer-shapes";
import { z } from "zod";
import { narrowTeams, visibleTeamIds } from "@/core/teams/team-access";
import { apiRoute } from "../_lib/api-route";
import { getPool } from "@/core/db/pool";
import { BadRequestError } from "@/core/errors";
import { ALERT_KINDS } from "@/core/alerts/alert-kinds";
import { tagListSchema } from "@/core/schedules/schedule-input";
import { decodeAlertCursor, listAlerts } from "@/core/alerts/list-alerts";

export const dynamic = "force-dynamic";

const query = z.strictObject({
  state: z.enum(["open", "all"]).default("open"),
  scheduleId: z.uuid({ error: "must be a schedule id (uuid)" }).optional(),
  tag: tagListSchema.optional(),
  kind: z.enum(ALERT_KINDS).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100),
  cursor: z.string().max(200).optional(),
  team: z.uuid({ error: "team must be a team id" }).optional(),
});

export const GET = apiRoute(
  {
    access: "viewer",
    scope: "alerts:read",
    summary: "List alerts, newest first, with their webhook deliveries.",
    answer: z.object({ alerts: z.array(alertItem), nextCursor: z.string().nullable() }),
    query,
    listParams: ["tag"],
  },
  async ({ query: q, actor }) => {
    const before = q.cursor ? decodeAlertCursor(q.cursor) : undefined;
    if (before === null)
      throw new BadRequestError("The cursor is not one this API returned.", "invalid_query", { cursor: "unknown cursor" });
    return listAlerts(getPool(), {
      state: q.state,
      scheduleId: q.scheduleId,
      tags: q.tag,
      kind: q.kind,
      limit: q.limit,
      before,
      teamIds: narrowTeams(visibleTeamIds(actor), q.team),
    });
  },
);
