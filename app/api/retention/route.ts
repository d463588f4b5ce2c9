// GET /api/retention → the retention settings the workers apply and what the last pass did (core/retention/get-retention-status.ts).
import { z } from "zod";
import { apiRoute } from "../_lib/api-route";
import { getPool } from "@/core/db/pool";
import { getRetentionStatus } from "@/core/retention/get-retention-status";

export const dynamic = "force-dynamic";

export const GET = apiRoute(
  { access: "viewer", summary: "The retention settings the workers apply and what the last pass did.", answer: z.looseObject({}) },
  async () => getRetentionStatus(getPool()),
);
