"use client";
// The team the console's lists are narrowed to (the header's team switcher), remembered in this browser; none means
// every team the caller belongs to. A page address with `team=` picks it (the switcher copies it here on arrival, so
// a link carries the pick). The lists pass it to their API as `?team=`, which narrows within the caller's teams
// (core/teams/team-access.ts narrowTeams). Only the switcher reads the address: the lists need no Suspense boundary.
import { useCallback, useEffect, useSyncExternalStore } from "react";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useQuery } from "@tanstack/react-query";
import { meQuery } from "./me-query";

const STORAGE_KEY = "vigil.team";
const CHANGED = "vigil-team-changed";

function subscribe(onChange: () => void): () => void {
  window.addEventListener(CHANGED, onChange);
  window.addEventListener("storage", onChange);
  return () => {
    window.removeEventListener(CHANGED, onChange);
    window.removeEventListener("storage", onChange);
  };
}

const readStored = (): string => window.localStorage.getItem(STORAGE_KEY) ?? "";

/** The picked team's id, or undefined for every team; only one of the caller's teams counts. */
export function usePickedTeam(): string | undefined {
  const picked = useSyncExternalStore(subscribe, readStored, () => "");
  const { data } = useQuery(meQuery());
  if (!picked || !data) return undefined;
  return data.actor.teams.some((t) => t.id === picked) ? picked : undefined;
}

function remember(teamId: string): void {
  if (teamId === readStored()) return;
  if (teamId) window.localStorage.setItem(STORAGE_KEY, teamId);
  else window.localStorage.removeItem(STORAGE_KEY);
  window.dispatchEvent(new Event(CHANGED));
}

/** Picks a team ("" for every team): remembered in this browser and written into the page address. A page opened
 * with `team=` in its address picks that team. */
export function usePickTeam(): (teamId: string) => void {
  const router = useRouter();
  const pathname = usePathname();
  const sp = useSearchParams();
  const fromAddress = sp.get("team");
  useEffect(() => {
    if (fromAddress !== null) remember(fromAddress);
  }, [fromAddress]);
  return useCallback(
    (teamId: string) => {
      remember(teamId);
      const next = new URLSearchParams(sp.toString());
      if (teamId) next.set("team", teamId);
      else next.delete("team");
      // A list's page offset belongs to the list before the switch.
      next.delete("page");
      const qs = next.toString();
      router.replace(qs ? `${pathname}?${qs}` : pathname);
    },
    [router, pathname, sp],
  );
}
