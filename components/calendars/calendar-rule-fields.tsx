"use client";
// The inputs for what a calendar blocks: weekdays, dates, recurring windows, and the absolute ranges (from an import).
import { WEEKDAY_NAMES } from "@/core/calendars/find-calendar-block";
import { formatInZone } from "../ui/time-format";
import { FormField } from "../ui/form-field";
import type { CalendarFormValues } from "./calendar-form-values";

interface Props {
  values: CalendarFormValues;
  set: (patch: Partial<CalendarFormValues>) => void;
  errors: Record<string, string>;
}

function WeekdayPicker({ days, onChange, label }: { days: number[]; onChange: (days: number[]) => void; label: string }) {
  return (
    <span className="row" role="group" aria-label={label} style={{ gap: 8, flexWrap: "wrap" }}>
      {WEEKDAY_NAMES.map((name, d) => (
        <label key={d} className="check-inline">
          <input
            type="checkbox"
            checked={days.includes(d)}
            onChange={(e) => onChange(e.target.checked ? [...days, d].sort() : days.filter((x) => x !== d))}
          />{" "}
          {name.slice(0, 3)}
        </label>
      ))}
    </span>
  );
}

const firstError = (errors: Record<string, string>, prefix: string) =>
  errors[prefix] ?? Object.entries(errors).find(([k]) => k.startsWith(`${prefix}.`))?.[1];

export function CalendarRuleFields({ values, set, errors }: Props) {
  const setWindow = (i: number, patch: Partial<CalendarFormValues["windows"][number]>) =>
    set({ windows: values.windows.map((w, j) => (j === i ? { ...w, ...patch } : w)) });
  return (
    <>
      <fieldset className="fieldset" data-testid="calendar-weekdays">
        <legend>Blocked weekdays (all day)</legend>
        <WeekdayPicker days={values.weekdays} onChange={(weekdays) => set({ weekdays })} label="Blocked weekdays" />
        {firstError(errors, "weekdays") && <div className="field-error">{firstError(errors, "weekdays")}</div>}
      </fieldset>
      <fieldset className="fieldset">
        <legend>Blocked dates (all day)</legend>
        <FormField
          label="Dates"
          testId="calendar-dates"
          error={firstError(errors, "dates")}
          hint="One per line or comma-separated, YYYY-MM-DD, read in the calendar's zone (e.g. 2026-12-25)."
        >
          <textarea rows={4} value={values.datesText} onChange={(e) => set({ datesText: e.target.value })} />
        </FormField>
      </fieldset>
      <fieldset className="fieldset" data-testid="calendar-windows">
        <legend>Recurring windows</legend>
        <p className="muted small" style={{ marginTop: 0 }}>
          Blocked every week on the chosen days, in wall time of the calendar&apos;s zone (e.g. Sundays 02:00–04:00). An end before the
          start runs over midnight.
        </p>
        {values.windows.map((w, i) => (
          <div key={i} className="row" data-testid="calendar-window" style={{ gap: 12, flexWrap: "wrap", marginBottom: 8 }}>
            <WeekdayPicker days={w.weekdays} onChange={(weekdays) => setWindow(i, { weekdays })} label={`Window ${i + 1} weekdays`} />
            <label className="check-inline">
              from{" "}
              <input
                type="time"
                aria-label={`Window ${i + 1} start`}
                value={w.start}
                onChange={(e) => setWindow(i, { start: e.target.value })}
              />
            </label>
            <label className="check-inline">
              to{" "}
              <input type="time" aria-label={`Window ${i + 1} end`} value={w.end} onChange={(e) => setWindow(i, { end: e.target.value })} />
            </label>
            <button type="button" className="small-button" onClick={() => set({ windows: values.windows.filter((_, j) => j !== i) })}>
              Remove
            </button>
            {firstError(errors, `windows.${i}`) && <div className="field-error">{firstError(errors, `windows.${i}`)}</div>}
          </div>
        ))}
        <button
          type="button"
          data-testid="add-window"
          onClick={() => set({ windows: [...values.windows, { weekdays: [0], start: "02:00", end: "04:00" }] })}
        >
          Add a window
        </button>
      </fieldset>
      <fieldset className="fieldset" data-testid="calendar-ranges">
        <legend>Blocked ranges ({values.ranges.length})</legend>
        {values.ranges.length === 0 ? (
          <p className="muted small" style={{ margin: 0 }}>
            None. Timed events of an imported .ics file become ranges.
          </p>
        ) : (
          <table className="table compact">
            <tbody>
              {values.ranges.slice(0, 50).map((r, i) => (
                <tr key={`${r.start}/${r.end}`}>
                  <td>{r.summary ?? <span className="muted">(no summary)</span>}</td>
                  <td>
                    {formatInZone(r.start, values.timezone)} – {formatInZone(r.end, values.timezone)}
                  </td>
                  <td>
                    <button type="button" className="small-button" onClick={() => set({ ranges: values.ranges.filter((_, j) => j !== i) })}>
                      Remove
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {values.ranges.length > 50 && <p className="muted small">…and {values.ranges.length - 50} more.</p>}
        {values.ranges.length > 0 && (
          <button type="button" onClick={() => set({ ranges: [] })}>
            Remove all ranges
          </button>
        )}
        {firstError(errors, "ranges") && <div className="field-error">{firstError(errors, "ranges")}</div>}
      </fieldset>
    </>
  );
}
