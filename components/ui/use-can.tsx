"use client";
// The console's one answer to "may the signed-in user do this?": controls that the API would refuse with 403
// are not drawn at all. It reads the role from /api/auth/me and compares it with core's role order, so the
// console and the API share one ranking (the API still checks every call; this only keeps the screen honest).
// On an object of a team (a schedule, a run, a calendar) pass its team id: the control then follows the role in THAT
// team (an operator of A who is a viewer of B sees Pause on A's schedules, not on B's); without one, the highest role.
import { useQuery } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { roleAllows, type Role } from "@/core/auth/roles";
import { meQuery, type Me } from "./me-query";

/** What a control needs: read (viewer), operate on schedules, runs and alerts (operator), administer (admin). */
export type Capability = "read" | "operate" | "administer";

const needs: Record<Capability, Role> = { read: "viewer", operate: "operator", administer: "admin" };

/** The role a capability needs, for messages. */
export function roleFor(capability: Capability): Role {
  return needs[capability];
}

/** The role that counts for an object of the team: the global admin's everywhere, else the role held in that team
 * (an auditor's counts as none: it reads the audit trail only). */
function roleInTeam(me: Me, teamId: string): Role | null {
  if (me.actor.globalAdmin) return "admin";
  const role = (me.actor.teams ?? []).find((t) => t.id === teamId)?.role;
  return role === undefined || role === "auditor" ? null : role;
}

/** Whether the actor may do `capability` (on an object of team `teamId`, when given). */
export function meCan(me: Me | null | undefined, capability: Capability, teamId?: string | null): boolean {
  if (!me) return false;
  // A team's admin is an operator at the routes but administers its own team (members, shares).
  if (!teamId) return roleAllows(me.actor.role, needs[capability]);
  const role = roleInTeam(me, teamId);
  return role !== null && roleAllows(role, needs[capability]);
}

/**
 * True once the signed-in actor's role allows `capability` — on an object of team `teamId`, the role in that team;
 * false while unknown, so nothing flashes up and vanishes.
 */
export function useCan(capability: Capability, teamId?: string | null): boolean {
  const { data } = useQuery(meQuery());
  return meCan(data, capability, teamId);
}

/** The same check for many objects at once (a list's rows): a function of the row's team id. */
export function useCanIn(capability: Capability): (teamId: string | null | undefined) => boolean {
  const { data } = useQuery(meQuery());
  return (teamId) => meCan(data, capability, teamId);
}

/** A team the control is about: its id decides, its name is for the message. */
export interface TeamRef {
  id: string;
  name: string;
}

const article = (role: string) => (/^[aeiou]/.test(role) ? "an" : "a");

/**
 * Why the actor may not do `capability` in `team`, in one sentence ("You are a viewer in team data; editing needs
 * operator."), or null when they may. `doing` names the action as a gerund ("editing").
 */
export function teamRoleRefusal(me: Me | null | undefined, capability: Capability, team: TeamRef, doing: string): string | null {
  if (meCan(me, capability, team.id)) return null;
  const held = me?.actor.teams.find((t) => t.id === team.id)?.role;
  const who = held ? `You are ${article(held)} ${held} in team ${team.name}` : `You hold no role in team ${team.name}`;
  return `${who}; ${doing} needs ${needs[capability]}.`;
}

/**
 * A whole page that needs a role: its children for those who have it, a plain explanation for those who do not.
 * With `team` (the page is about one object of that team) the role in THAT team decides, and the explanation names
 * it; `what` is then the action as a gerund ("editing"). Without, the highest role in any team ("create schedules").
 */
export function RequireCapability({
  capability,
  what,
  team,
  children,
}: {
  capability: Capability;
  what: string;
  team?: TeamRef;
  children: ReactNode;
}) {
  const { data, isPending } = useQuery(meQuery());
  if (isPending) return <p className="muted">Loading…</p>;
  const role = needs[capability];
  if (team) {
    const refusal = teamRoleRefusal(data, capability, team, what);
    if (refusal === null) return <>{children}</>;
    return (
      <div className="card" role="alert" data-testid="needs-role" data-role={role} data-team={team.name}>
        <p>
          <strong>{refusal}</strong>
        </p>
        <p className="muted">Ask an admin of team {team.name} to change your role there; everything else here you can still look at.</p>
      </div>
    );
  }
  if (data && roleAllows(data.actor.role, role)) return <>{children}</>;
  return (
    <div className="card" role="alert" data-testid="needs-role" data-role={role}>
      <p>
        <strong>
          You need the {role} role to {what}.
        </strong>
      </p>
      <p className="muted">
        {data ? (
          <>
            You are signed in as {data.actor.label} with the {data.actor.role} role.{" "}
          </>
        ) : null}
        Ask an admin to change your role; everything else here you can still look at.
      </p>
    </div>
  );
}
