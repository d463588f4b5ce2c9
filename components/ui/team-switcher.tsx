"use client";
// The header's team switcher: "All teams" or one of the caller's teams (every team for the global admin). The
// Schedules, Runs, Timeline, Alerts, Audit and Overview lists show only the picked team's objects (use-picked-team.ts).
// Someone in one team has nothing to switch, and sees no switcher.
import { useQuery } from "@tanstack/react-query";
import { usePathname } from "next/navigation";
import { meQuery } from "./me-query";
import { usePickedTeam, usePickTeam } from "./use-picked-team";

/** Whether the header shows the switcher: the caller belongs to two teams or more. */
export function useShowsTeamSwitcher(): boolean {
  const { data } = useQuery(meQuery());
  return (data?.actor.teams.length ?? 0) >= 2;
}

export function TeamSwitcher() {
  const path = usePathname();
  const { data } = useQuery(meQuery());
  const shown = useShowsTeamSwitcher();
  const picked = usePickedTeam();
  const pick = usePickTeam();
  if (path.startsWith("/login") || !data || !shown) return null;
  return (
    <label className="team-switcher" title="Show the lists of one team only">
      <span className="sr-only">Team</span>
      <select value={picked ?? ""} onChange={(e) => pick(e.target.value)} data-testid="team-switcher" aria-label="Team">
        <option value="">All teams</option>
        {data.actor.teams.map((t) => (
          <option key={t.id} value={t.id}>
            {t.name}
          </option>
        ))}
      </select>
    </label>
  );
}
