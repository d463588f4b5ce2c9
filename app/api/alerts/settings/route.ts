// GET /api/alerts/settings → { failureAlertThreshold } (core/alerts/alert-settings.ts): the global defaults a schedule's
// own alert settings fall back to, from this console's environment (the workers that evaluate alerts read the same
// variables; the README asks for the same values on both).
import { z } from "zod";
import { apiRoute } from "../../_lib/api-route";
import { getEnv } from "@/core/env";
import { alertSettingsFromEnv } from "@/core/alerts/alert-settings";

export const dynamic = "force-dynamic";

export const GET = apiRoute(
  {
    access: "viewer",
    scope: "alerts:read",
    summary: "The global alert defaults a schedule's own alert settings fall back to.",
    answer: z.looseObject({ failureAlertThreshold: z.number() }),
  },
  async () => alertSettingsFromEnv(getEnv()),
);
