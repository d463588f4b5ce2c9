"use client";
import Link from "next/link";
import { useQuery } from "@tanstack/react-query";
import { useCan } from "../ui/use-can";
import { usePickedTeam } from "../ui/use-picked-team";
import { calendarsQuery, type CalendarView } from "./calendars-queries";
import { describeWindow, WEEKDAY_NAMES } from "@/core/calendars/find-calendar-block";

/** What a calendar blocks, in a line: "Sat, Sun · 3 dates · Sundays 02:00–04:00 · 12 ranges". */
export function calendarSummary(c: Pick<CalendarView, "weekdays" | "dates" | "windows" | "ranges">): string {
  const parts = [
    c.weekdays.length > 0 ? c.weekdays.map((d) => WEEKDAY_NAMES[d]!.slice(0, 3)).join(", ") : null,
    c.dates.length > 0 ? `${c.dates.length} ${c.dates.length === 1 ? "date" : "dates"}` : null,
    ...c.windows.map(describeWindow),
    c.ranges.length > 0 ? `${c.ranges.length} ${c.ranges.length === 1 ? "range" : "ranges"}` : null,
  ].filter(Boolean);
  return parts.length > 0 ? parts.join(" · ") : "blocks nothing yet";
}

export function CalendarsList() {
  const team = usePickedTeam();
  const { data, error, isPending } = useQuery(calendarsQuery(team));
  const canEdit = useCan("operate");
  if (isPending) return <p className="muted">Loading calendars…</p>;
  if (error) return <p className="error">Could not load calendars: {error.message}</p>;
  if (data.calendars.length === 0 && team) {
    return (
      <p className="muted" data-testid="no-calendars">
        The team picked in the header owns no calendar and none is shared with it.
      </p>
    );
  }
  if (data.calendars.length === 0) {
    return (
      <p className="muted" data-testid="no-calendars">
        No calendars yet. {canEdit ? <Link href="/calendars/new">Create one</Link> : "An operator can create one"} for holidays, business
        days or maintenance windows; schedules then skip or shift the fires it blocks.
      </p>
    );
  }
  return (
    <table className="table" data-testid="calendars-table">
      <thead>
        <tr>
          <th>Name</th>
          <th>Zone</th>
          <th>Blocks</th>
          <th>Schedules</th>
        </tr>
      </thead>
      <tbody>
        {data.calendars.map((c) => (
          <tr key={c.id} data-testid="calendar-row">
            <td>
              <Link href={`/calendars/${c.id}`}>{c.name}</Link>
              {c.description && <div className="muted">{c.description}</div>}
            </td>
            <td>{c.timezone}</td>
            <td>{calendarSummary(c)}</td>
            <td>
              {c.schedules.length === 0 ? (
                <span className="muted">none</span>
              ) : (
                c.schedules.map((s, i) => (
                  <span key={s.id}>
                    {i > 0 && ", "}
                    <Link href={`/schedules/${s.id}`}>{s.name}</Link> <span className="muted">({policyLabel(s.policy)})</span>
                  </span>
                ))
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function policyLabel(policy: string): string {
  return policy === "skip" ? "skip" : policy === "shift_previous" ? "shift to previous allowed time" : "shift to next allowed time";
}
