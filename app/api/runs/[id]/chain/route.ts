// GET /api/runs/:id/chain (viewer) → { upstream, downstream }: the occurrences of the schedules this run's schedule
// runs after that it waits for (each with its state and whether it meets the condition), and the downstream
// occurrences that wait for this run (core/runs/chain/chain-occurrences.ts).
import { z } from "zod";
import { apiRoute } from "../../../_lib/api-route";
import { getPool } from "@/core/db/pool";
import { getRunChain } from "@/core/runs/chain/chain-occurrences";

export const dynamic = "force-dynamic";

const occurrence = z.looseObject({ runId: z.string(), state: z.string(), plannedAt: z.string(), waitReason: z.string().nullable() });

export const GET = apiRoute(
  {
    access: "viewer",
    scope: "runs:read",
    object: { kind: "run", param: "id" },
    summary:
      "A run's chain: the upstream occurrences it runs after (with whether each meets its condition) and the downstream ones that wait for it.",
    answer: z.object({
      upstream: z.array(
        z.looseObject({
          scheduleId: z.string(),
          scheduleName: z.string(),
          condition: z.string(),
          mapping: z.string(),
          mappingTimezone: z.string().nullable(),
          run: occurrence.nullable(),
          verdict: z.enum(["met", "impossible", "wait"]),
        }),
      ),
      downstream: z.array(
        z.looseObject({ scheduleId: z.string(), scheduleName: z.string(), condition: z.string(), runs: z.array(occurrence) }),
      ),
    }),
    params: z.object({ id: z.uuid() }),
  },
  async ({ params }) => getRunChain(getPool(), params.id),
);
