import { queryOptions } from "@tanstack/react-query";
import { fetchJson } from "../ui/fetch-json";
import type { Jsonify } from "@/core/jsonify";

/** A row of GET /api/teams — core/teams/team-store.ts TeamView. */
export type TeamRow = Jsonify<import("@/core/teams/team-store").TeamView>;

export const teamsQuery = () =>
  queryOptions({
    queryKey: ["teams"],
    queryFn: () => fetchJson<{ teams: TeamRow[] }>("/api/teams"),
  });
