// POST /api/runs/bulk   (operator) body: { action: "cancel"|"rerun", reason (unless dryRun), dryRun?, scheduleId?, states?, from?, to?,
//   team?, runIds? }
//   cancel: the runs of scheduleId in states (default queued, running, retrying); rerun: runs planned in [from, to)
//   in states (default failed), optionally of one schedule; `team` narrows either to one of the caller's teams (the
//   console's team switcher); or exactly runIds. At most 500 runs (more → 422 too_many_runs). Dry run → { count, runIds }; otherwise → { bulkId, count, succeeded, failed, items: per run
//   { runId, ok, state | error{code,message} } } — one audit row per run plus one for the bulk action.
import { z } from "zod";
import { apiRoute } from "../../_lib/api-route";
import { bulkRunAction, bulkRunActionSchema } from "@/core/runs/operate/bulk-run-action";
import { getConsoleBoss } from "@/core/queue/console-boss";
import { assertTokenScope } from "@/core/auth/token-scopes";

export const dynamic = "force-dynamic";

export const POST = apiRoute(
  {
    access: "operator",
    scope: ["runs:cancel", "runs:rerun"],
    summary: "Cancel or re-run many runs at once (dry run first).",
    answer: z.looseObject({ count: z.number() }),
    body: bulkRunActionSchema,
  },
  async ({ body, actor }) => {
    assertTokenScope(actor, body.action === "cancel" ? "runs:cancel" : "runs:rerun");
    return bulkRunAction(body, actor, { boss: body.dryRun ? null : await getConsoleBoss() });
  },
);
