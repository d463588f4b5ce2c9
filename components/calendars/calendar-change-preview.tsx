"use client";
import Link from "next/link";
import { formatInZone } from "../ui/time-format";
import type { CalendarSaveView } from "./calendars-queries";

type Fire = CalendarSaveView["effects"]["changed"][number]["before"][number];

function FireCell({ fire, zone }: { fire: Fire | undefined; zone: string }) {
  if (!fire) return <td className="muted">—</td>;
  const moved = fire.plannedAt !== fire.nominalAt;
  return (
    <td title={fire.reason ?? undefined} data-fate={fire.fate}>
      {fire.fate === "run" ? formatInZone(fire.plannedAt, zone) : <s className="muted">{formatInZone(fire.nominalAt, zone)}</s>}{" "}
      {fire.fate !== "run" && <span className="pill muted">{fire.fate}</span>}
      {moved && fire.fate === "run" && <span className="pill info">moved</span>}
      {fire.reason && <div className="muted small">{fire.reason}</div>}
    </td>
  );
}

/** Which schedules' next fires a calendar save changes: old and new side by side, per schedule (a dry run's answer). */
export function CalendarChangePreview({ effects, zone }: { effects: CalendarSaveView["effects"]; zone: string }) {
  return (
    <section className="card" aria-labelledby="changes-title" data-testid="calendar-change-preview">
      <h3 id="changes-title" style={{ marginTop: 0 }}>
        {effects.changed.length === 0
          ? "No schedule's next fires change"
          : `Next fires that change: ${effects.changed.length} ${effects.changed.length === 1 ? "schedule" : "schedules"}`}
      </h3>
      {effects.unchanged.length > 0 && <p className="muted">Unchanged: {effects.unchanged.join(", ")}.</p>}
      {effects.changed.map((c) => {
        const rows = Math.max(c.before.length, c.after.length);
        return (
          <div key={c.schedule.id} data-testid="calendar-change" style={{ marginTop: 12 }}>
            <h4 style={{ margin: "4px 0" }}>
              <Link href={`/schedules/${c.schedule.id}`}>{c.schedule.name}</Link>
            </h4>
            <table className="table compact">
              <thead>
                <tr>
                  <th>Now</th>
                  <th>After saving</th>
                </tr>
              </thead>
              <tbody>
                {Array.from({ length: rows }, (_, i) => {
                  const same = JSON.stringify(c.before[i]) === JSON.stringify(c.after[i]);
                  return (
                    <tr key={i} className={same ? "" : "changed"} data-testid={same ? undefined : "changed-fire"}>
                      <FireCell fire={c.before[i]} zone={zone} />
                      <FireCell fire={c.after[i]} zone={zone} />
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        );
      })}
    </section>
  );
}
