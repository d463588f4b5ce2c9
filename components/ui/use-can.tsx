"use client";
// The console's one answer to "may the signed-in user do this?": controls that the API would refuse with 403
// are not drawn at all. It reads the role from /api/auth/me and compares it with core's role order, so the
// console and the API share one ranking (the API still checks every call; this only keeps the screen honest).
import { useQuery } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { roleAllows, type Role } from "@/core/auth/roles";
import { meQuery } from "./me-query";

/** What a control needs: read (viewer), operate on schedules, runs and alerts (operator), administer (admin). */
export type Capability = "read" | "operate" | "administer";

const needs: Record<Capability, Role> = { read: "viewer", operate: "operator", administer: "admin" };

/** The role a capability needs, for messages. */
export function roleFor(capability: Capability): Role {
  return needs[capability];
}

/** True once the signed-in actor's role allows `capability`; false while unknown, so nothing flashes up and vanishes. */
export function useCan(capability: Capability): boolean {
  const { data } = useQuery(meQuery());
  return data ? roleAllows(data.actor.role, needs[capability]) : false;
}

/** A whole page that needs a role: its children for those who have it, a plain explanation for those who do not. */
export function RequireCapability({ capability, what, children }: { capability: Capability; what: string; children: ReactNode }) {
  const { data, isPending } = useQuery(meQuery());
  if (isPending) return <p className="muted">Loading…</p>;
  if (data && roleAllows(data.actor.role, needs[capability])) return <>{children}</>;
  const role = needs[capability];
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
