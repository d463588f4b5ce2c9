"use client";
import Link from "next/link";
import { usePathname } from "next/navigation";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { fetchJson } from "./fetch-json";
import { meQuery } from "./me-query";
import { useCan } from "./use-can";
import { DisplayToggles } from "./display-preferences";

/** Who is signed in, with an admin link for admins, the time zone and theme choices and a sign-out button. */
export function UserMenu() {
  const path = usePathname();
  const { data } = useQuery(meQuery());
  const [busy, setBusy] = useState(false);
  const canAdminister = useCan("administer");
  if (path.startsWith("/login")) return null;
  if (data === undefined) return <div className="user-menu" aria-busy="true" />;
  if (data === null) {
    return (
      <div className="user-menu">
        <Link href="/login">Sign in</Link>
      </div>
    );
  }
  const { label, role } = data.actor;
  async function signOut() {
    setBusy(true);
    try {
      await fetchJson("/api/auth/logout", { method: "POST" });
    } finally {
      window.location.assign("/login");
    }
  }
  return (
    <div className="user-menu row" data-testid="user-menu" style={{ gap: 8 }}>
      <span title={`Signed in as ${label} (${role})`}>
        <span data-testid="user-menu-label">{label}</span> <span className="pill muted">{role}</span>
      </span>
      {canAdminister && (
        <Link href="/admin" className={path.startsWith("/admin") ? "active" : ""}>
          Admin
        </Link>
      )}
      <DisplayToggles />
      <button type="button" onClick={signOut} disabled={busy}>
        Sign out
      </button>
    </div>
  );
}
