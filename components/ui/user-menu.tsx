"use client";
import Link from "next/link";
import { usePathname } from "next/navigation";
import { useQuery } from "@tanstack/react-query";
import { useRef, useState } from "react";
import { fetchJson } from "./fetch-json";
import { meQuery } from "./me-query";
import { useCan } from "./use-can";
import { DisplayToggles } from "./display-preferences";
import { useMediaQuery } from "./use-media-query";
import { useShowsTeamSwitcher } from "./team-switcher";
import { useAdminTeams } from "../teams/admin-team-select";

/** Below this width the account controls fold into one drop-down, so the header keeps to one row (globals.css). */
const COMPACT_HEADER = "(max-width: 1399px)";
/** The same with the team switcher in the header: it takes the room of the account links. */
const COMPACT_HEADER_WITH_SWITCHER = "(max-width: 1599px)";

/** Who is signed in, with an admin link for admins, the API reference, the time zone and theme choices and a sign-out button. */
export function UserMenu() {
  const path = usePathname();
  const { data } = useQuery(meQuery());
  const [busy, setBusy] = useState(false);
  const canAdminister = useCan("administer");
  // A team's admin reaches the Admin page too: it manages its teams' secrets there.
  const adminTeams = useAdminTeams(Boolean(data) && !canAdminister);
  const switcher = useShowsTeamSwitcher();
  const narrow = useMediaQuery(COMPACT_HEADER);
  const narrowWithSwitcher = useMediaQuery(COMPACT_HEADER_WITH_SWITCHER);
  const compact = narrow || (switcher && narrowWithSwitcher);
  const menu = useRef<HTMLDetailsElement>(null);
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
  if (compact) {
    const close = () => menu.current?.removeAttribute("open");
    return (
      <details className="user-menu account-menu" data-testid="user-menu" ref={menu}>
        <summary title={`Signed in as ${label} (${role})`}>
          <span data-testid="user-menu-label">{label}</span> <span aria-hidden="true">▾</span>
        </summary>
        <div className="account-menu-panel card">
          <span>
            Signed in as {label} <span className="pill muted">{role}</span>
          </span>
          {(canAdminister || adminTeams.length > 0) && (
            <Link href="/admin" onClick={close} className={path.startsWith("/admin") ? "active" : ""}>
              Admin
            </Link>
          )}
          <Link href="/teams" onClick={close} className={path.startsWith("/teams") ? "active" : ""}>
            Teams
          </Link>
          <Link href="/api-docs" onClick={close} className={path.startsWith("/api-docs") ? "active" : ""}>
            API
          </Link>
          <DisplayToggles />
          <button type="button" onClick={signOut} disabled={busy}>
            Sign out
          </button>
        </div>
      </details>
    );
  }
  return (
    <div className="user-menu row" data-testid="user-menu" style={{ gap: 8 }}>
      <span title={`Signed in as ${label} (${role})`}>
        <span data-testid="user-menu-label">{label}</span> <span className="pill muted user-role">{role}</span>
      </span>
      {(canAdminister || adminTeams.length > 0) && (
        <Link href="/admin" className={path.startsWith("/admin") ? "active" : ""}>
          Admin
        </Link>
      )}
      <Link href="/teams" className={path.startsWith("/teams") ? "active" : ""}>
        Teams
      </Link>
      <Link href="/api-docs" className={path.startsWith("/api-docs") ? "active" : ""}>
        API
      </Link>
      <DisplayToggles />
      <button type="button" onClick={signOut} disabled={busy}>
        Sign out
      </button>
    </div>
  );
}
