// GET /api/retention → the retention settings the workers apply and what the last pass did (core/retention/get-retention-status.ts).
import { iso } from "@/app/api/_lib/contract/answer-shapes";
import { z } from "zod";
import { apiRoute } from "../_lib/api-route";
import { getPool } from "@/core/db/pool";
import { getRetentionStatus } from "@/core/retention/get-retention-status";

export const dynamic = "force-dynamic";

export const GET = apiRoute(
  {
    access: "viewer",
    scope: "admin",
    summary: "The retention settings the workers apply and what the last pass did.",
    answer: z.looseObject({
      settings: z.record(z.string(), z.unknown()),
      settingsFrom: z.enum(["worker", "console"]),
      lastPass: z
        .looseObject({
          workerId: z.string().nullable(),
          startedAt: iso.nullable(),
          finishedAt: iso.nullable(),
          error: z.string().nullable(),
        })
        .nullable(),
      partitions: z.array(z.looseObject({ table: z.string(), count: z.number() })),
      schedulesWithOverride: z.number(),
    }),
  },
  async () => getRetentionStatus(getPool()),
);
