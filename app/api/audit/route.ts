import { z } from "zod";
import { narrowTeams, visibleTeamIds } from "@/core/teams/team-access";
import { iso } from "@/app/api/_lib/contract/answer-shapes";
import { apiRoute } from "../_lib/api-route";
import { getPool } from "@/core/db/pool";
import { auditListQuerySchema } from "@/core/audit/audit-filter";
import { listAudit } from "@/core/audit/list-audit";

export const dynamic = "force-dynamic";

export const GET = apiRoute(
  {
    access: "viewer",
    scope: "audit:read",
    summary: "List audit events, newest first, filtered.",
    answer: z.looseObject({
      events: z.array(z.looseObject({ id: z.number(), at: iso, action: z.string() })),
      nextCursor: z.string().nullable(),
    }),
    query: auditListQuerySchema,
  },
  async ({ query, actor }) =>
    listAudit(getPool(), { ...query, mask: actor.role === "viewer", teamIds: narrowTeams(visibleTeamIds(actor, "audit"), query.team) }),
);
