"use client";
import Link from "next/link";
import { usePathname } from "next/navigation";
import { useQuery } from "@tanstack/react-query";
import { formatInZone } from "../ui/time-format";
import { maintenanceQuery } from "./maintenance-queries";

/** On every page while maintenance is on: what is paused, by whom, why, and until when. */
export function MaintenanceBanner() {
  const signingIn = usePathname().startsWith("/login");
  const { data } = useQuery({ ...maintenanceQuery(), enabled: !signingIn });
  if (signingIn || !data || data.maintenance.length === 0) return null;
  return (
    <div className="banner warn maintenance-banner" role="status" data-testid="maintenance-banner">
      {data.maintenance.map((w) => (
        <div key={w.id} data-testid="maintenance-window" data-tag={w.tag ?? ""}>
          <strong>
            Maintenance:{" "}
            {w.tag ? (
              <>
                schedules tagged <Link href={`/schedules?tag=${encodeURIComponent(w.tag)}`}>{w.tag}</Link>
              </>
            ) : (
              <Link href="/schedules">all schedules</Link>
            )}{" "}
            paused
          </strong>{" "}
          ({w.pausedSchedules} schedule{w.pausedSchedules === 1 ? "" : "s"}) by {w.startedBy} since {formatInZone(w.startedAt)}: {w.reason}.{" "}
          {w.until ? <>Resumes by itself at {formatInZone(w.until)}.</> : <>Until an operator resumes them.</>}
        </div>
      ))}
    </div>
  );
}
