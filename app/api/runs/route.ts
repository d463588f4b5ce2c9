// GET /api/runs?state=&scheduleId=&tag=&from=&to=&lateness=&cursor=&limit=   (viewer) tag: repeatable; runs of schedules having every tag
//   state: one state or a list (comma-separated, or the parameter repeated) (planned, queued, running, retrying, succeeded, failed, timed_out,
//   cancelled, skipped_overlap, missed, paused, hollow, zombie); from/to: ISO bounds on plannedAt; limit 1..500
//   (default 50); lateness: late | on_time, only runs that started late / on time (core/runs/lateness.ts's
//   rule). Newest planned first; without a state filter running and zombie runs come first, and future
//   occurrences are left out unless `to` is given.
//   → { runs: RunListItem[] (core/runs/read/list-runs.ts; dates as ISO strings), nextCursor: string|null } — pass
//       nextCursor as `cursor` for the next page.
import { runItem } from "@/app/api/_lib/contract/answer-shapes";
import { z } from "zod";
import { apiRoute } from "../_lib/api-route";
import { getPool } from "@/core/db/pool";
import { listRuns } from "@/core/runs/read/list-runs";
import { RUN_STATES } from "@/core/runs/run-states";
import { narrowTeams, visibleTeamIds } from "@/core/teams/team-access";
import { tagListSchema } from "@/core/schedules/schedule-input";

export const dynamic = "force-dynamic";

const isoDate = (name: string) =>
  z.iso.datetime({ offset: true, error: `${name} must be an ISO 8601 date-time with an offset` }).transform((s) => new Date(s));

export const GET = apiRoute(
  {
    access: "viewer",
    scope: "runs:read",
    summary: "List runs, newest planned first, filtered and paged.",
    answer: z.object({ runs: z.array(runItem), nextCursor: z.string().nullable() }),
    listParams: ["state", "tag"],
    query: z.object({
      state: z
        .string()
        .transform((s) =>
          s
            .split(",")
            .map((x) => x.trim())
            .filter(Boolean),
        )
        .pipe(z.array(z.enum(RUN_STATES, { error: `state must be one of ${RUN_STATES.join(", ")}` })))
        .optional(),
      scheduleId: z.uuid({ error: "scheduleId must be a schedule id (UUID)" }).optional(),
      tag: tagListSchema.optional(),
      from: isoDate("from").optional(),
      to: isoDate("to").optional(),
      lateness: z.enum(["late", "on_time"], { error: "lateness must be late or on_time" }).optional(),
      cursor: z.string().max(500).optional(),
      limit: z.coerce.number().int().min(1).max(500).optional(),
      team: z.uuid({ error: "team must be a team id" }).optional(),
    }),
  },
  async ({ query, actor }) =>
    listRuns(getPool(), {
      teamIds: narrowTeams(visibleTeamIds(actor), query.team),
      states: query.state,
      scheduleId: query.scheduleId,
      tags: query.tag,
      from: query.from,
      to: query.to,
      lateness: query.lateness,
      cursor: query.cursor,
      limit: query.limit,
    }),
);
