"use client";
import Link from "next/link";
import { usePathname } from "next/navigation";

const ITEMS = [
  { href: "/schedules", label: "Schedules" },
  { href: "/timeline", label: "Timeline" },
  { href: "/load", label: "Load" },
  { href: "/calendars", label: "Calendars" },
  { href: "/runs", label: "Runs" },
  { href: "/alerts", label: "Alerts" },
  { href: "/audit", label: "Audit" },
  { href: "/workers", label: "Workers" },
];

export function Nav() {
  const path = usePathname();
  return (
    <nav className="nav" aria-label="Main">
      {ITEMS.map((i) => (
        <Link
          key={i.href}
          href={i.href}
          className={path.startsWith(i.href) ? "active" : ""}
          aria-current={path.startsWith(i.href) ? "page" : undefined}
        >
          {i.label}
        </Link>
      ))}
    </nav>
  );
}
