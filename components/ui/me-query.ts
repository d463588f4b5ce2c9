// Who is signed in, read once from /api/auth/me and shared by the user menu, the role checks and the display
// preferences: they all import it from here, so none of them depends on another to learn the actor.
import { queryOptions } from "@tanstack/react-query";
import { ApiError, fetchJson } from "./fetch-json";

/** A team the signed-in actor belongs to, with its role there (every team, as admin, for the global admin). */
export interface MeTeam {
  id: string;
  name: string;
  role: "viewer" | "operator" | "admin" | "auditor";
}

export interface Me {
  actor: {
    type: "user" | "token";
    id: string | null;
    label: string;
    role: "viewer" | "operator" | "admin";
    globalAdmin: boolean;
    teams: MeTeam[];
  };
}

export const meQuery = () =>
  queryOptions({
    queryKey: ["me"],
    queryFn: async () => {
      try {
        return await fetchJson<Me>("/api/auth/me");
      } catch (err) {
        if (err instanceof ApiError && err.status === 401) return null;
        throw err;
      }
    },
    staleTime: 60_000,
  });
