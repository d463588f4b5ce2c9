// The next fire times of a trigger before it is saved, flagged where DST moves or repeats them, counted
// from the database clock (an interval without an anchor counts from now, as it would if created now). For a saved
// schedule (scheduleId) each fire also carries its fate from the fire plan (fire-plan.ts: its calendars, start and
// end dates, its pause), so the schedule page's list says what the forecast and the planner do.
import { z } from "zod";
import { loadScheduleCalendars } from "../calendars/calendar-rules";
import { dbNow, type Queryable } from "../db/pool";
import { computeNextFireTimes, type FireTime } from "./compute-next-fire-times";
import { describeTrigger } from "./describe-trigger";
import { firePlanOf, planFires, type FireFate } from "./fire-plan";
import { getScheduleOrThrow } from "./schedule-record";
import { assertOnceInFuture, triggerSchema } from "./trigger";

export const MAX_PREVIEW = 500;

export const previewInputSchema = z.strictObject({
  trigger: triggerSchema,
  count: z
    .number({ error: "Count must be a number of fire times" })
    .int({ error: "Count must be a whole number" })
    .min(1, { error: "Count must be at least 1" })
    .max(MAX_PREVIEW, { error: `Count must be at most ${MAX_PREVIEW}` })
    .default(10),
  /** Start of the preview (default: now); must be an ISO instant. */
  from: z.iso.datetime({ offset: true, error: "From must be an ISO 8601 date-time with an offset" }).optional(),
  /** A saved schedule: its fires get their fates from its plan (calendars, dates, pause) with this trigger. */
  scheduleId: z.uuid({ error: "scheduleId must be a schedule id (a UUID)" }).optional(),
});

export type PreviewInput = z.output<typeof previewInputSchema>;

export interface PreviewResult {
  now: string;
  description: string;
  fires: {
    at: string;
    localTime: string;
    utcOffset: string;
    dst?: FireTime["dst"];
    /** With scheduleId: what the plan does with the fire, where it runs (a calendar may move it) and why. */
    plan?: { fate: FireFate; plannedAt: string; reason: string | null };
  }[];
}

/** `v` is parsed by previewInputSchema (the API route's body schema); a one-off's time is checked here against the database clock. */
export async function previewTrigger(db: Queryable, v: PreviewInput): Promise<PreviewResult> {
  const now = await dbNow(db);
  assertOnceInFuture(v.trigger, now);
  const from = v.from ? new Date(v.from) : now;
  const fires = computeNextFireTimes(v.trigger, from, v.count, { anchor: now, includeSkipped: true });
  const plan = v.scheduleId && fires.length > 0 ? await planOf(db, v.scheduleId, v.trigger, from, fires.at(-1)!.at) : null;
  return {
    now: now.toISOString(),
    description: describeTrigger(v.trigger),
    fires: fires.map((f) => {
      const p = plan?.get(f.at.getTime());
      return {
        at: f.at.toISOString(),
        localTime: f.localTime,
        utcOffset: f.utcOffset,
        ...(f.dst ? { dst: f.dst } : {}),
        ...(p ? { plan: { fate: p.fate, plannedAt: p.plannedAt.toISOString(), reason: p.reason } } : {}),
      };
    }),
  };
}

/** The saved schedule's plan with `trigger` over (from, until], by nominal instant. */
async function planOf(db: Queryable, scheduleId: string, trigger: PreviewInput["trigger"], from: Date, until: Date) {
  const schedule = await getScheduleOrThrow(db, scheduleId);
  const links = await loadScheduleCalendars(db, [scheduleId]);
  const { fires } = planFires(firePlanOf({ ...schedule, trigger }, links.get(scheduleId) ?? []), { from, until });
  return new Map(fires.map((f) => [f.nominalAt.getTime(), f]));
}
