"use client";
import { useQuery } from "@tanstack/react-query";
import { FAILED_STATES, RUN_STATES } from "@/core/runs/run-states";
import { schedulesQuery } from "../schedules/schedules-queries";
import { stateStyle } from "../ui/run-state-style";
import { toLocalInput } from "../schedules/schedule-form-values";
import type { RunFilters } from "./runs-queries";

interface Props {
  filters: RunFilters;
  onChange: (f: RunFilters) => void;
  /** Hide the schedule picker (on a schedule's own page). */
  fixedSchedule?: boolean;
}

const toIso = (local: string) => (local ? new Date(local).toISOString() : undefined);

export function RunsFilters({ filters, onChange, fixedSchedule }: Props) {
  const schedules = useQuery({ ...schedulesQuery(), enabled: !fixedSchedule, refetchInterval: false });
  return (
    <div className="filters row" role="search" aria-label="Filter runs">
      <div className="field">
        <label htmlFor="runs-state">State</label>
        <select id="runs-state" value={filters.state ?? ""} onChange={(e) => onChange({ ...filters, state: e.target.value || undefined })}>
          <option value="">Any state</option>
          <option value={FAILED_STATES.join(",")}>✕ failed or timed out</option>
          {RUN_STATES.map((s) => (
            <option key={s} value={s}>
              {stateStyle(s).icon} {stateStyle(s).label}
            </option>
          ))}
        </select>
      </div>
      {!fixedSchedule && (
        <div className="field">
          <label htmlFor="runs-schedule">Schedule</label>
          <select
            id="runs-schedule"
            value={filters.scheduleId ?? ""}
            onChange={(e) => onChange({ ...filters, scheduleId: e.target.value || undefined })}
          >
            <option value="">All schedules</option>
            {(schedules.data?.schedules ?? []).map((s) => (
              <option key={s.id} value={s.id}>
                {s.name}
              </option>
            ))}
          </select>
        </div>
      )}
      <div className="field">
        <label htmlFor="runs-lateness">Start</label>
        <select
          id="runs-lateness"
          value={filters.lateness ?? ""}
          onChange={(e) => onChange({ ...filters, lateness: e.target.value || undefined })}
        >
          <option value="">Any start</option>
          <option value="late">◷ Started late</option>
          <option value="on_time">Started on time</option>
        </select>
      </div>
      {!fixedSchedule && (
        <div className="field">
          <label htmlFor="runs-tag">Tag</label>
          <input
            id="runs-tag"
            key={filters.tag ?? ""}
            defaultValue={filters.tag ?? ""}
            placeholder="e.g. team:payments"
            size={14}
            onBlur={(e) => onChange({ ...filters, tag: e.target.value.trim() || undefined })}
            onKeyDown={(e) => {
              if (e.key === "Enter") onChange({ ...filters, tag: e.currentTarget.value.trim() || undefined });
            }}
          />
        </div>
      )}
      <div className="field">
        <label htmlFor="runs-from">Planned from</label>
        <input
          id="runs-from"
          type="datetime-local"
          value={filters.from ? toLocalInput(filters.from) : ""}
          onChange={(e) => onChange({ ...filters, from: toIso(e.target.value) })}
        />
      </div>
      <div className="field">
        <label htmlFor="runs-to">Planned to</label>
        <input
          id="runs-to"
          type="datetime-local"
          value={filters.to ? toLocalInput(filters.to) : ""}
          onChange={(e) => onChange({ ...filters, to: toIso(e.target.value) })}
        />
      </div>
      {(filters.state || filters.lateness || filters.from || filters.to || filters.tag || (!fixedSchedule && filters.scheduleId)) && (
        <button type="button" onClick={() => onChange(fixedSchedule ? { scheduleId: filters.scheduleId } : {})}>
          Clear filters
        </button>
      )}
    </div>
  );
}
