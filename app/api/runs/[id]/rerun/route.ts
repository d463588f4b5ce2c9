// GET  /api/runs/:id/rerun   (viewer)   → RerunPreview (core/runs/operate/rerun-run.ts): the attempt the re-run will be,
//   the ctx.once effects already recorded for the occurrence (they will not repeat), and `refusal` when not allowed.
//   `downstream`: what `withDownstream` would re-run (the chain's dry run).
// POST /api/runs/:id/rerun   (operator) body: { reason: string (required), withDownstream?: boolean }
//   → { runId, attempt, state: "retrying", onceEffects } — a new attempt of the same occurrence (same key).
//   A succeeded run → 409 run_succeeded (use trigger now: "run again as a new occurrence"); a run that has not
//   ended → 409 run_not_rerunnable.
import { z } from "zod";
import { apiRoute } from "../../../_lib/api-route";
import { getPool } from "@/core/db/pool";
import { previewRerun, rerunRun } from "@/core/runs/operate/rerun-run";
import { getConsoleBoss } from "@/core/queue/console-boss";

export const dynamic = "force-dynamic";

const rerunBodySchema = z.strictObject({
  reason: z
    .string({ error: "Say why you re-run it (reason)" })
    .trim()
    .min(1, { error: "Say why you re-run it (reason)" })
    .max(500, { error: "reason must be at most 500 characters" }),
  /** Also put the ended downstream occurrences (down the chain) back to wait for this one; GET lists them first. */
  withDownstream: z.boolean({ error: "withDownstream must be true or false" }).optional(),
});

const downstreamItem = z.looseObject({
  runId: z.string(),
  scheduleId: z.string(),
  scheduleName: z.string(),
  state: z.string(),
  action: z.enum(["rerun", "waits_already"]),
});

export const GET = apiRoute(
  {
    access: "viewer",
    scope: "runs:read",
    object: { kind: "run", param: "id" },
    summary: "Preview a re-run: the attempt it will be, the once-effects that will not repeat, or why it is refused.",
    answer: z.looseObject({
      runId: z.string(),
      state: z.string(),
      nextAttempt: z.number(),
      onceEffects: z.number(),
      downstream: z.array(downstreamItem),
    }),
    params: z.object({ id: z.uuid() }),
  },
  async ({ params }) => previewRerun(getPool(), params.id),
);

export const POST = apiRoute(
  {
    access: "operator",
    scope: "runs:rerun",
    object: { kind: "run", param: "id" },
    summary: "Re-run a finished run as a new attempt of the same occurrence (audited).",
    answer: z.object({
      runId: z.string(),
      attempt: z.number(),
      state: z.literal("retrying"),
      onceEffects: z.number(),
      downstream: z.array(downstreamItem).optional(),
    }),
    errors: ["run_succeeded", "run_not_rerunnable"],
    params: z.object({ id: z.uuid() }),
    body: rerunBodySchema,
  },
  async ({ params, body, actor }) =>
    rerunRun(params.id, actor, body.reason, { boss: await getConsoleBoss(), withDownstream: body.withDownstream === true }),
);
