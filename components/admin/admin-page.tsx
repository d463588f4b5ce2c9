"use client";
import { useQuery } from "@tanstack/react-query";
import { meQuery } from "../ui/me-query";
import { useCan } from "../ui/use-can";
import { UsersPanel } from "./users-panel";
import { TokensPanel } from "./tokens-panel";
import { SessionsPanel } from "./sessions-panel";
import { SecretsPanel } from "./secrets-panel";
import { useAdminTeams } from "../teams/admin-team-select";

export function AdminPage() {
  const { data: me, isPending } = useQuery(meQuery());
  const canAdminister = useCan("administer");
  const adminTeams = useAdminTeams(Boolean(me));
  if (isPending) return <p className="muted">Loading…</p>;
  // Everyone signed in sees (and can end) their own sessions; accounts and tokens are for admins.
  const own = me?.actor.type === "user" ? <SessionsPanel /> : null;
  // A team's admin manages its team's secrets here; accounts and tokens stay the global admin's.
  if (!canAdminister) {
    return (
      <>
        <p className="muted">
          {adminTeams.length > 0
            ? "Accounts and tokens are managed by Vigil's admins; you manage the secrets of the teams you are admin of."
            : "Only admins manage accounts, tokens and secrets. Ask an admin to change your role."}
        </p>
        {own}
        {adminTeams.length > 0 && <SecretsPanel />}
      </>
    );
  }
  return (
    <>
      <UsersPanel />
      <TokensPanel />
      {own}
      <SecretsPanel />
    </>
  );
}
