import { cronFireTimes } from "./cron-fire-times";
import { clampCount, MAX_FIRE_TIMES, toFireTime, type FireTime } from "./fire-time";
import type { IntervalTrigger, Trigger } from "./trigger";

export type { DstFlag, FireTime } from "./fire-time";
export { MAX_FIRE_TIMES } from "./fire-time";

export interface FireTimeOptions {
  /** Interval anchor when the trigger has none: the schedule's creation time. */
  anchor?: Date;
  /** Last instant to include (inclusive). */
  until?: Date;
  /**
   * Also return the fixed cron times a DST gap drops under policy gap "skip", flagged `dst.skipped`, so a preview
   * can show them. They are not fires: they do not count towards `count`. Off for planning.
   */
  includeSkipped?: boolean;
}

/**
 * The next fires of a trigger strictly after `from` (and not after `until`), at most `count` (capped at
 * MAX_FIRE_TIMES), in order. Pure: the caller passes the database's time as `from`; nothing here reads a clock.
 * `trigger` must have been parsed with triggerSchema.
 */
export function computeNextFireTimes(trigger: Trigger, from: Date, count: number, opts: FireTimeOptions = {}): FireTime[] {
  const fromMs = instantOf(from, "from");
  const untilMs = opts.until === undefined ? undefined : instantOf(opts.until, "until");
  const max = clampCount(count);
  if (max === 0 || (untilMs !== undefined && untilMs <= fromMs)) return [];

  switch (trigger.kind) {
    case "cron":
      return cronFireTimes(trigger, { from: fromMs, until: untilMs, count: max, includeSkipped: opts.includeSkipped ?? false });
    case "interval":
      return intervalFireTimes(trigger, fromMs, untilMs, max, opts.anchor);
    case "once": {
      const at = Date.parse(trigger.at);
      const inRange = at > fromMs && (untilMs === undefined || at <= untilMs);
      return inRange ? [toFireTime(at, 0)] : [];
    }
  }
}

/**
 * Fires in (from, to], for backfill and misfire handling, at most `limit` (default and cap MAX_FIRE_TIMES). A
 * result of exactly `limit` entries may have been cut short.
 */
export function computeFireTimesBetween(
  trigger: Trigger,
  from: Date,
  to: Date,
  opts: Omit<FireTimeOptions, "until"> & { limit?: number } = {},
): FireTime[] {
  const { limit = MAX_FIRE_TIMES, ...rest } = opts;
  return computeNextFireTimes(trigger, from, limit, { ...rest, until: to });
}

function intervalFireTimes(
  trigger: IntervalTrigger,
  fromMs: number,
  untilMs: number | undefined,
  count: number,
  fallbackAnchor: Date | undefined,
): FireTime[] {
  const anchorText = trigger.anchor;
  const anchorMs =
    anchorText !== undefined ? Date.parse(anchorText) : fallbackAnchor !== undefined ? instantOf(fallbackAnchor, "anchor") : undefined;
  if (anchorMs === undefined) {
    throw new Error("An interval trigger needs an anchor: pass the schedule's creation time as opts.anchor");
  }
  const everyMs = trigger.everySeconds * 1000;
  // The anchor is the first fire; a schedule does not fire before it even when `from` is earlier.
  const k = fromMs < anchorMs ? 0 : Math.floor((fromMs - anchorMs) / everyMs) + 1;
  const out: FireTime[] = [];
  for (let i = 0; i < count; i++) {
    const at = anchorMs + (k + i) * everyMs;
    if (untilMs !== undefined && at > untilMs) break;
    out.push(toFireTime(at, 0));
  }
  return out;
}

function instantOf(date: Date, name: string): number {
  const ms = date.getTime();
  if (Number.isNaN(ms)) throw new RangeError(`computeNextFireTimes: ${name} is an invalid Date`);
  return ms;
}
