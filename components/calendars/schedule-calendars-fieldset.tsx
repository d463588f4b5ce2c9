"use client";
// The schedule form's calendars: which business calendars the schedule follows, in order, and what each does with a
// fire it blocks (skip it, or shift it to the previous / next allowed time).
import Link from "next/link";
import { useQuery } from "@tanstack/react-query";
import type { CalendarPolicy } from "@/core/calendars/calendar-rules";
import { calendarsQuery } from "./calendars-queries";
import { calendarSummary } from "./calendars-list";

export interface ScheduleCalendarValue {
  calendar: string;
  policy: CalendarPolicy;
}

interface Props {
  value: ScheduleCalendarValue[];
  onChange: (value: ScheduleCalendarValue[]) => void;
  errors: Record<string, string>;
}

const POLICIES: { value: CalendarPolicy; label: string }[] = [
  { value: "skip", label: "skip the fire" },
  { value: "shift_previous", label: "shift to the previous allowed time" },
  { value: "shift_next", label: "shift to the next allowed time" },
];

export function ScheduleCalendarsFieldset({ value, onChange, errors }: Props) {
  const { data, error } = useQuery(calendarsQuery());
  const calendars = data?.calendars ?? [];
  const unused = calendars.filter((c) => !value.some((v) => v.calendar.toLowerCase() === c.name.toLowerCase()));
  const setRow = (i: number, patch: Partial<ScheduleCalendarValue>) => onChange(value.map((v, j) => (j === i ? { ...v, ...patch } : v)));
  return (
    <fieldset className="fieldset" data-testid="schedule-calendars">
      <legend>Calendars</legend>
      <p className="muted small" style={{ marginTop: 0 }}>
        Fires on days or times a calendar blocks are skipped or moved; they apply in this order.{" "}
        <Link href="/calendars">Manage calendars</Link>
      </p>
      {error && <p className="error">Could not load calendars: {error.message}</p>}
      {value.map((v, i) => {
        const c = calendars.find((x) => x.name.toLowerCase() === v.calendar.toLowerCase());
        const rowError = errors[`calendars.${i}.calendar`] ?? errors[`calendars.${i}.policy`];
        return (
          <div key={i} className="row" data-testid="schedule-calendar" style={{ gap: 8, flexWrap: "wrap", marginBottom: 8 }}>
            <select aria-label={`Calendar ${i + 1}`} value={v.calendar} onChange={(e) => setRow(i, { calendar: e.target.value })}>
              {!c && <option value={v.calendar}>{v.calendar}</option>}
              {calendars
                .filter((x) => x === c || unused.includes(x))
                .map((x) => (
                  <option key={x.id} value={x.name}>
                    {x.name}
                  </option>
                ))}
            </select>
            <select
              aria-label={`Calendar ${i + 1} policy`}
              value={v.policy}
              onChange={(e) => setRow(i, { policy: e.target.value as CalendarPolicy })}
            >
              {POLICIES.map((p) => (
                <option key={p.value} value={p.value}>
                  {p.label}
                </option>
              ))}
            </select>
            <button type="button" className="small-button" onClick={() => onChange(value.filter((_, j) => j !== i))}>
              Remove
            </button>
            {c && <span className="muted small">{calendarSummary(c)}</span>}
            {rowError && (
              <div className="field-error" role="alert">
                {rowError}
              </div>
            )}
          </div>
        );
      })}
      {errors["calendars"] && <div className="field-error">{errors["calendars"]}</div>}
      {unused.length > 0 ? (
        <button
          type="button"
          data-testid="add-schedule-calendar"
          onClick={() => onChange([...value, { calendar: unused[0]!.name, policy: "skip" }])}
        >
          Follow a calendar
        </button>
      ) : (
        calendars.length === 0 && data && <p className="muted small">No calendars exist yet.</p>
      )}
    </fieldset>
  );
}
