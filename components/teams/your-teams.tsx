"use client";
// One line on the pages that list a team's objects: which teams the caller sees, with its role in each, and the way
// to the Teams page.
import Link from "next/link";
import { useQuery } from "@tanstack/react-query";
import { teamsQuery } from "./teams-queries";

export function YourTeams() {
  const { data } = useQuery(teamsQuery());
  const teams = data?.teams ?? [];
  if (teams.length === 0) return null;
  return (
    <p className="muted" data-testid="your-teams">
      Teams shown:{" "}
      {teams.map((t, i) => (
        <span key={t.id}>
          {i > 0 && ", "}
          <span className="mono">{t.name}</span> ({t.yourRole})
        </span>
      ))}{" "}
      · <Link href="/teams">Teams</Link>
    </p>
  );
}
