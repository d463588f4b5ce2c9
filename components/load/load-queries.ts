import { queryOptions } from "@tanstack/react-query";
import { fetchJson } from "../ui/fetch-json";
import type { Jsonify } from "@/core/jsonify";
import type { LoadForecast } from "@/core/load/load-forecast";
import type { SpreadResult } from "@/core/load/spread-load";

/** GET /api/load-forecast — core/load/load-forecast.ts. */
export type LoadForecastView = Jsonify<LoadForecast>;
/** POST /api/load-forecast/spread — core/load/spread-load.ts. */
export type SpreadView = Jsonify<SpreadResult>;

export interface LoadSelection {
  window: "24h" | "7d";
  by: "fleet" | "group" | "tag";
  key?: string;
}

/** team: the groups, bursts and group options keep to that team (the header's team switcher); the curve is the fleet's. */
export const loadForecastQuery = (s: LoadSelection, team?: string) =>
  queryOptions({
    queryKey: ["load-forecast", s, team ?? null],
    queryFn: () => {
      const q = new URLSearchParams({
        window: s.window,
        by: s.by,
        ...(s.by !== "fleet" && s.key ? { key: s.key } : {}),
        ...(team ? { team } : {}),
      });
      return fetchJson<LoadForecastView>(`/api/load-forecast?${q}`);
    },
    enabled: s.by === "fleet" || Boolean(s.key),
    // The window moves on by the minute; schedules change rarely.
    refetchInterval: 60_000,
  });

export function spreadLoad(body: { window: LoadSelection["window"]; by: "group" | "tag"; key: string; keep: string[]; dryRun: boolean }) {
  return fetchJson<SpreadView>("/api/load-forecast/spread", { method: "POST", json: body });
}
