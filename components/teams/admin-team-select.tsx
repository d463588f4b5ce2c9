"use client";
// The teams where the signed-in user is admin (every team for the global admin): what a secret or an alert channel
// can be created in, and whether the pages that manage them are for this user at all. The API checks every call.
import { useQuery } from "@tanstack/react-query";
import { FormField } from "../ui/form-field";
import { teamsQuery, type TeamRow } from "./teams-queries";

/** The caller's admin teams, by name; empty while unknown (or when not `enabled`: nobody is signed in). */
export function useAdminTeams(enabled = true): TeamRow[] {
  const { data } = useQuery({ ...teamsQuery(), enabled });
  return (data?.teams ?? []).filter((t) => t.yourRole === "admin").sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * A Team select over the caller's admin teams. With one team there is nothing to choose: it is shown, and the API's
 * default (the caller's only admin team) applies. Value "" means "not chosen" (the API then asks when it must).
 */
export function AdminTeamSelect({
  value,
  onChange,
  error,
  testId = "team-select",
}: {
  value: string;
  onChange: (team: string) => void;
  error?: string;
  testId?: string;
}) {
  const teams = useAdminTeams();
  return (
    <FormField label="Team" hint="The team that owns it: its admins manage it, its schedules use it." error={error} testId={testId}>
      <select value={teams.length === 1 ? teams[0]!.name : value} onChange={(e) => onChange(e.target.value)} disabled={teams.length <= 1}>
        {teams.length !== 1 && <option value="">Choose a team…</option>}
        {teams.map((t) => (
          <option key={t.id} value={t.name}>
            {t.name}
          </option>
        ))}
      </select>
    </FormField>
  );
}
