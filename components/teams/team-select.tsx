"use client";
// The Team field of the schedule and calendar forms: the teams where the caller may create (operator or admin there,
// every team for the global admin), defaulting to the only one. On a schedule's edit it lists the teams the caller
// administers, and only when it administers the schedule's current team too: moving a schedule between teams takes
// the admin role in both (the API checks it again).
import { useEffect } from "react";
import { useQuery } from "@tanstack/react-query";
import { FormField } from "../ui/form-field";
import { meQuery } from "../ui/me-query";
import { meCan, type Capability } from "../ui/use-can";
import { DEFAULT_TEAM_ID } from "@/core/teams/team-roles";

interface Props {
  value: string;
  onChange: (teamId: string) => void;
  error?: string;
  /** "create": teams where the caller operates; "move": teams it administers (an edit). */
  purpose: "create" | "move";
  /** On an edit: the object's team, always listed (and the only one when the caller may not move it). */
  currentTeamId?: string;
  currentTeamName?: string;
}

export function TeamSelect({ value, onChange, error, purpose, currentTeamId, currentTeamName }: Props) {
  const { data: me } = useQuery(meQuery());
  const need: Capability = purpose === "create" ? "operate" : "administer";
  const teams = (me?.actor.teams ?? []).filter((t) => meCan(me, need, t.id));
  const mayMove = purpose === "move" && currentTeamId !== undefined && meCan(me, "administer", currentTeamId);
  const options =
    purpose === "create" || mayMove ? teams : currentTeamId ? [{ id: currentTeamId, name: currentTeamName ?? currentTeamId }] : [];
  // One team to create in: it is the default, picked without asking. The global admin's default is the default team
  // (where the API puts an object that names none), shown picked rather than left to a blank choice.
  const preset =
    purpose !== "create"
      ? null
      : teams.length === 1
        ? teams[0]!.id
        : me?.actor.globalAdmin
          ? (teams.find((t) => t.id === DEFAULT_TEAM_ID)?.id ?? null)
          : null;
  useEffect(() => {
    if (preset && value === "") onChange(preset);
  }, [preset, value, onChange]);
  const hint =
    purpose === "create"
      ? "The team it belongs to: its members see it, its operators change it."
      : mayMove
        ? "Moving it to another team takes the admin role in both teams."
        : "Only an admin of this team and of the target team may move it.";
  return (
    <FormField label="Team" testId="team-select" error={error} hint={hint}>
      <select value={value} onChange={(e) => onChange(e.target.value)} disabled={purpose === "move" && !mayMove}>
        {purpose === "create" && options.length !== 1 && <option value="">Pick a team…</option>}
        {options.map((t) => (
          <option key={t.id} value={t.id}>
            {t.name}
          </option>
        ))}
      </select>
    </FormField>
  );
}
