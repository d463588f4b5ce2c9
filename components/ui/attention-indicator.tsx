"use client";
import Link from "next/link";
import { useQuery } from "@tanstack/react-query";
import { FAILED_STATES } from "@/core/runs/run-states";
import { overviewQuery, type AttentionCounts } from "./overview-queries";
import { usePickedTeam } from "./use-picked-team";

const ITEMS: { key: keyof AttentionCounts; label: string; icon: string; href: string; title: string }[] = [
  { key: "zombie", label: "zombie", icon: "☠", href: "/runs?state=zombie", title: "zombie" },
  { key: "failed", label: "failed", icon: "✕", href: `/runs?state=${FAILED_STATES.join(",")}`, title: "failed or timed-out" },
  { key: "missed", label: "missed", icon: "⚠", href: "/runs?state=missed", title: "missed" },
  { key: "hollow", label: "hollow", icon: "○", href: "/runs?state=hollow", title: "hollow" },
  { key: "late", label: "late", icon: "◷", href: "/timeline", title: "late" },
];

/** Header badge: anything failed (or timed out), late, missed, hollow or zombie in the last hour, each linking to those runs. */
export function AttentionIndicator() {
  const team = usePickedTeam();
  const { data, isError } = useQuery(overviewQuery(team));
  if (isError || !data) return null;
  const hits = ITEMS.filter((i) => data.lastHour[i.key] > 0);
  if (hits.length === 0) {
    return (
      <span
        className="pill ok"
        data-testid="attention"
        data-state="clear"
        title="Nothing failed, timed out, late, missed, hollow or zombie in the last hour"
      >
        ✓ All clear (1 h)
      </span>
    );
  }
  return (
    <span className="attention" data-testid="attention" data-state="alert" role="status" aria-label="Needs attention in the last hour">
      <span className="muted small attention-window" title="Runs in the last hour">
        1 h:
      </span>
      {hits.map((i) => (
        <Link
          key={i.key}
          href={i.href}
          className={`pill ${i.key === "late" ? "warn" : "bad"}`}
          title={`${data.lastHour[i.key]} ${i.title} run(s) in the last hour`}
          data-testid={`attention-${i.key}`}
        >
          <span aria-hidden="true">{i.icon}</span> {data.lastHour[i.key]}
          <span className="pill-word"> {i.label}</span>
        </Link>
      ))}
    </span>
  );
}
