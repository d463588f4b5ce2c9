"use client";
import Link from "next/link";
import { usePathname } from "next/navigation";
import { useQuery } from "@tanstack/react-query";
import { ALERT_KIND_INFO } from "@/core/alerts/alert-kinds";
import { alertSummaryQuery } from "../alerts/alerts-queries";
import { usePickedTeam } from "./use-picked-team";

/** Header badge: how many alerts are open (critical ones make it red) and the newest, linking to the alerts page;
 * narrowed, as the alerts list is, to the team picked in the header's team switcher. */
export function AlertsBadge() {
  // Nothing to show (and no session to ask with) on the sign-in page.
  const signingIn = usePathname().startsWith("/login");
  const team = usePickedTeam();
  const { data } = useQuery({ ...alertSummaryQuery(team), enabled: !signingIn });
  if (signingIn) return null;
  if (!data || data.open === 0) return null;
  const newest = data.newest;
  const tone = data.critical > 0 ? "bad" : "warn";
  return (
    <Link
      href="/alerts"
      className={`pill ${tone}`}
      style={{ textDecoration: "none" }}
      data-testid="alerts-badge"
      data-count={data.open}
      role="status"
      title={newest ? `Newest: ${newest.message}` : undefined}
      aria-label={`${data.open} open alert${data.open === 1 ? "" : "s"}, ${data.unacknowledged} not acknowledged`}
    >
      <span aria-hidden="true">◆</span> {data.open} alert{data.open === 1 ? "" : "s"}
      <span className="pill-detail">
        {newest ? ` · ${ALERT_KIND_INFO[newest.kind]?.label ?? newest.kind}` : ""}
        {data.unacknowledged === 0 ? " · acknowledged" : data.unacknowledged < data.open ? ` · ${data.unacknowledged} new` : ""}
      </span>
    </Link>
  );
}
