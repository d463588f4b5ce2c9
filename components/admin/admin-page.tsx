"use client";
import { useQuery } from "@tanstack/react-query";
import { meQuery } from "../ui/user-menu";
import { UsersPanel } from "./users-panel";
import { TokensPanel } from "./tokens-panel";
import { SecretsPanel } from "./secrets-panel";

export function AdminPage() {
  const { data: me, isPending } = useQuery(meQuery());
  if (isPending) return <p className="muted">Loading…</p>;
  if (me?.actor.role !== "admin") {
    return <p className="muted">Only admins manage accounts, tokens and secrets. Ask an admin to change your role.</p>;
  }
  return (
    <>
      <UsersPanel />
      <TokensPanel />
      <SecretsPanel />
    </>
  );
}
