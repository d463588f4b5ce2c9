"use client";
import { useQuery } from "@tanstack/react-query";
import { meQuery } from "../ui/me-query";
import { useCan } from "../ui/use-can";
import { UsersPanel } from "./users-panel";
import { TokensPanel } from "./tokens-panel";
import { SessionsPanel } from "./sessions-panel";
import { SecretsPanel } from "./secrets-panel";

export function AdminPage() {
  const { data: me, isPending } = useQuery(meQuery());
  const canAdminister = useCan("administer");
  if (isPending) return <p className="muted">Loading…</p>;
  // Everyone signed in sees (and can end) their own sessions; accounts and tokens are for admins.
  const own = me?.actor.type === "user" ? <SessionsPanel /> : null;
  if (!canAdminister) {
    return (
      <>
        <p className="muted">Only admins manage accounts, tokens and secrets. Ask an admin to change your role.</p>
        {own}
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
