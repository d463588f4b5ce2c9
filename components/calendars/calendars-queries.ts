// Query keys and fetchers for business calendars: one queryOptions factory each, shared by the calendars pages and
// the schedule form's calendar picker.
import { queryOptions } from "@tanstack/react-query";
import { fetchJson } from "../ui/fetch-json";
import type { Jsonify } from "@/core/jsonify";
import type { Calendar } from "@/core/calendars/calendar-record";
import type { CalendarSaveResult } from "@/core/calendars/save-calendar";

export type CalendarView = Jsonify<Calendar>;
export type CalendarSaveView = Jsonify<CalendarSaveResult>;
export type CalendarImportView = CalendarSaveView & { imported: { events: number; skipped: number; dates: number; ranges: number } };

/** Every calendar the caller sees, or (team: the header's team switcher) those the team owns or is shared. */
export const calendarsQuery = (team?: string) =>
  queryOptions({
    queryKey: team ? ["calendars", { team }] : ["calendars"],
    queryFn: () => fetchJson<{ calendars: CalendarView[] }>(`/api/calendars${team ? `?team=${encodeURIComponent(team)}` : ""}`),
  });

export const calendarQuery = (id: string) =>
  queryOptions({
    queryKey: ["calendars", id],
    queryFn: () => fetchJson<{ calendar: CalendarView }>(`/api/calendars/${id}`),
  });
