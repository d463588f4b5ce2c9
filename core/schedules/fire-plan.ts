// The one owner of a schedule's plan: which fires its trigger produces in a range and what becomes of each
// (runs, excluded or shifted by a calendar, held by a pause, outside its start/end dates, skipped by DST). The
// planner writes exactly this; the timeline forecast and the load forecast draw exactly this.
//
// The rules, in the order they decide (the first that applies gives the fate):
// 1. Trigger and DST policy: the trigger's instants; a wall time a DST gap drops under gap policy "skip" is listed
//    as `dst_skipped` with the sentence saying so.
// 2. Start and end dates: a fire before `startsAt` is `not_started`, one after `endsAt` is `ended`.
// 3. Calendars (core/calendars/calendar-rules.ts applyCalendars): `excluded`, or moved (plannedAt ≠ nominalAt).
//    A fire moved onto an instant another fire already takes, or whose instant an earlier fire was moved onto, is
//    `excluded` with a reason naming the collision: the earlier nominal fire keeps the instant.
// 4. Pause: while the schedule is paused, its fires are `paused` (with `until`, only those before it).
// 5. Otherwise it runs, somewhere in [plannedAt, plannedAt + jitterMs].
import { applyCalendars, type CalendarLink, type CalendarPolicy } from "../calendars/calendar-rules";
import { computeFireTimesBetween, type DstFlag } from "./compute-next-fire-times";
import { MAX_FIRE_TIMES } from "./fire-time";
import type { Schedule } from "./schedule-record";

export type FireFate = "run" | "excluded" | "paused" | "ended" | "not_started" | "dst_skipped";

/** Fates the planner writes a run row for: `run` and `paused` as scheduled rows, `excluded` as a terminal row. */
export const FATES_WITH_A_ROW: readonly FireFate[] = ["run", "paused", "excluded"];

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
  /** What a resume does with the fires held by a pause with `until` (the newest ones it runs); absent = none run. */
  misfirePolicy?: Schedule["misfirePolicy"];
  catchUpLimit?: number;
  startsAt?: Date | null;
  endsAt?: Date | null;
  calendars: CalendarLink[];
}

/** What the plan needs of a schedule: the record plus its calendar links (calendar-rules.ts loadScheduleCalendars). */
export function firePlanOf(schedule: Schedule, calendars: CalendarLink[] = []): FirePlanSchedule {
  return { ...schedule, startsAt: schedule.startsAt ?? null, endsAt: schedule.endsAt ?? null, calendars };
}

/**
 * How far before a range the plan looks for fires a calendar moved (or that take an instant a later fire is moved
 * onto), so that the fate of a fire does not depend on where a range starts. A shift longer than this (a calendar
 * blocking more than a week in a row) may collide unnoticed across two planning calls; the run rows' unique
 * (schedule, planned_at) index then keeps the first.
 */
export const SHIFT_LOOKBACK_MS = 7 * 86_400_000;

/**
 * The schedule's fires with nominal instants in (from, until], each with its fate, in order of nominal instant; at
 * most `limit` fires of the trigger (cut = true when more remain; DST-skipped entries do not count). Pure.
 */
export function planFires(
  schedule: FirePlanSchedule,
  range: { from: Date; until: Date },
  opts: { limit?: number } = {},
): { fires: PlannedFire[]; cut: boolean } {
  const limit = opts.limit ?? MAX_FIRE_TIMES;
  if (range.until.getTime() <= range.from.getTime() || limit <= 0) return { fires: [], cut: false };
  const anchor = schedule.createdAt;
  const times = computeFireTimesBetween(schedule.trigger, range.from, range.until, { anchor, limit, includeSkipped: true });
  const real = times.filter((t) => !t.dst?.skipped).length;

  // Instants taken by runs (an excluded row takes none), nominal order: fires before the range first (only when a calendar can move fires).
  const taken = new Map<number, Date>();
  if (schedule.calendars.some((l) => l.policy !== "skip")) {
    let from = new Date(range.from.getTime() - SHIFT_LOOKBACK_MS);
    for (;;) {
      const earlier = computeFireTimesBetween(schedule.trigger, from, range.from, { anchor, limit: MAX_FIRE_TIMES });
      for (const t of earlier) fateOf(schedule, t.at, t.dst, taken);
      if (earlier.length < MAX_FIRE_TIMES) break;
      from = earlier.at(-1)!.at;
    }
  }
  const fires = times.map((t) => {
    if (t.dst?.skipped) return fire(schedule, t.at, t.at, "dst_skipped", t.dst.note, null, t.dst);
    return fateOf(schedule, t.at, t.dst, taken);
  });
  runNewestHeld(schedule, fires);
  return { fires, cut: real === limit };
}

/** The fate of one fire of the trigger at `at`; records the instant its row takes in `taken`. */
function fateOf(s: FirePlanSchedule, at: Date, dst: DstFlag | undefined, taken: Map<number, Date>): PlannedFire {
  if (s.startsAt && at.getTime() < s.startsAt.getTime())
    return fire(s, at, at, "not_started", `before the schedule's start date (it starts ${formatInstant(s.startsAt)})`, null, dst);
  if (s.endsAt && at.getTime() > s.endsAt.getTime())
    return fire(s, at, at, "ended", `after the schedule's end date (it ended ${formatInstant(s.endsAt)})`, null, dst);

  const outcome = applyCalendars(s.calendars, at.getTime());
  const calendar =
    outcome.kind === "keep"
      ? null
      : {
          id: outcome.calendar.id,
          name: outcome.calendar.name,
          policy: outcome.policy,
        };
  if (outcome.kind === "excluded") return fire(s, at, at, "excluded", outcome.reason, calendar, dst);
  const plannedAt = outcome.kind === "shifted" ? new Date(outcome.toMs) : at;
  const holder = taken.get(plannedAt.getTime());
  if (holder) {
    const moved = outcome.kind === "shifted" ? `${outcome.reason}; ` : "";
    const reason = `${moved}excluded: the fire of ${formatInstant(holder)} already runs at ${formatInstant(plannedAt)}${
      holder.getTime() !== plannedAt.getTime() ? " (a calendar moved it there)" : ""
    }, and one schedule runs once per instant`;
    // Recorded at its own instant (its row cannot take the instant another row holds).
    return fire(s, at, at, "excluded", reason, calendar, dst);
  }
  const reason = outcome.kind === "shifted" ? outcome.reason : null;
  const until = s.paused?.until ?? null;
  if (s.paused && (until === null || plannedAt.getTime() < until.getTime())) {
    const held = until ? `held: the schedule is paused until ${formatInstant(until)}` : "held: the schedule is paused until it is resumed";
    return take(taken, fire(s, at, plannedAt, "paused", reason ? `${held}; ${reason}` : held, calendar, dst));
  }
  return take(taken, fire(s, at, plannedAt, "run", reason, calendar, dst));
}

/**
 * A pause with `until` ends in a resume at `until`, whose misfire policy runs the newest held fires (none for skip,
 * the newest for run_once, the newest catchUpLimit for catch_up; core/runs/plan/mark-missed-decision.ts): those run
 * at the resume. Only the held fires in this range are seen (a range ending inside the pause shows none as run).
 */
function runNewestHeld(s: FirePlanSchedule, fires: PlannedFire[]): void {
  const until = s.paused?.until;
  if (!until || !s.misfirePolicy || s.misfirePolicy === "skip") return;
  const kept = s.misfirePolicy === "run_once" ? 1 : Math.max(0, s.catchUpLimit ?? 0);
  const held = fires.filter((f) => f.fate === "paused");
  const hasLater = fires.some((f) => f.nominalAt.getTime() >= until.getTime());
  if (!hasLater) return;
  for (const f of held.slice(Math.max(0, held.length - kept))) {
    f.fate = "run";
    f.reason = `held by the pause until ${formatInstant(until)}, then run at the resume (misfire policy ${s.misfirePolicy})`;
  }
}

function take(taken: Map<number, Date>, f: PlannedFire): PlannedFire {
  if (!taken.has(f.plannedAt.getTime())) taken.set(f.plannedAt.getTime(), f.nominalAt);
  return f;
}

function fire(
  s: FirePlanSchedule,
  nominalAt: Date,
  plannedAt: Date,
  fate: FireFate,
  reason: string | null,
  calendar: PlannedFire["calendar"],
  dst: DstFlag | undefined,
): PlannedFire {
  return { nominalAt, plannedAt, fate, reason, calendar, jitterMs: s.startJitterMs, ...(dst ? { dst } : {}) };
}

/** "2026-12-25 18:00 UTC" (seconds when they are not zero). */
export function formatInstant(d: Date): string {
  const iso = d.toISOString();
  const seconds = iso.slice(17, 19) !== "00" || iso.slice(20, 23) !== "000";
  return `${iso.slice(0, 10)} ${iso.slice(11, seconds ? 19 : 16)} UTC`;
}
