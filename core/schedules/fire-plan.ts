// The one owner of a schedule's plan: which fires its trigger produces in a range and what becomes of each
// (runs, excluded or shifted by a calendar, held by a pause, outside its start/end dates, skipped by DST). The
// planner writes exactly this; the timeline forecast and the load forecast draw exactly this.
import { applyCalendars, type CalendarLink, type CalendarPolicy } from "../calendars/calendar-rules";
import { computeFireTimesBetween, type DstFlag } from "./compute-next-fire-times";
import { MAX_FIRE_TIMES } from "./fire-time";
import type { Schedule } from "./schedule-record";

export type FireFate = "run" | "excluded" | "paused" | "ended" | "not_started" | "dst_skipped";

export interface PlannedFire {
  /** The trigger's own instant. */
  nominalAt: Date;
  /** When it fires: nominalAt, or where a calendar moved it. A run's planned_at. */
  plannedAt: Date;
  fate: FireFate;
  /** Why it will not run, or how it was moved (one sentence); null for a plain run. */
  reason: string | null;
  calendar: { id: string; name: string; policy: CalendarPolicy } | null;
  /** Start jitter: due somewhere in [plannedAt, plannedAt + jitterMs]. */
  jitterMs: number;
  dst?: DstFlag;
}

export interface FirePlanSchedule extends Pick<Schedule, "id" | "trigger" | "createdAt" | "startJitterMs" | "paused" | "timezone"> {
  startsAt?: Date | null;
  endsAt?: Date | null;
  calendars: CalendarLink[];
}

/** What the plan needs of a schedule: the record plus its calendar links (calendar-rules.ts loadScheduleCalendars). */
export function firePlanOf(schedule: Schedule, calendars: CalendarLink[] = []): FirePlanSchedule {
  return { ...schedule, calendars };
}

/**
 * The schedule's fires with nominal instants in (from, until], each with its fate, in order; at most `limit`
 * (cut = true when more remain). Pure.
 */
export function planFires(
  schedule: FirePlanSchedule,
  range: { from: Date; until: Date },
  opts: { limit?: number } = {},
): { fires: PlannedFire[]; cut: boolean } {
  const limit = opts.limit ?? MAX_FIRE_TIMES;
  const times = computeFireTimesBetween(schedule.trigger, range.from, range.until, { anchor: schedule.createdAt, limit });
  const fires = times.map((t): PlannedFire => {
    const outcome = applyCalendars(schedule.calendars, t.at.getTime());
    const base = { nominalAt: t.at, plannedAt: t.at, jitterMs: schedule.startJitterMs, ...(t.dst ? { dst: t.dst } : {}) };
    if (outcome.kind === "keep") return { ...base, fate: "run", reason: null, calendar: null };
    const calendar = { id: outcome.calendar.id, name: outcome.calendar.name, policy: schedule.calendars[0]!.policy };
    if (outcome.kind === "excluded") return { ...base, fate: "excluded", reason: outcome.reason, calendar };
    return { ...base, plannedAt: new Date(outcome.toMs), fate: "run", reason: outcome.reason, calendar };
  });
  return { fires, cut: times.length === limit };
}
