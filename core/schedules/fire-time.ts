import { formatOffset, formatWall } from "./zone-clock";

export interface DstFlag {
  /** gap: the planned wall time does not exist that day; repeat: it happens twice. */
  kind: "gap" | "repeat";
  /** One sentence for the preview, e.g. "02:30 does not exist on 2026-03-08 in America/New_York (…); runs at 03:00". */
  note: string;
  /** Set on entries returned only with `includeSkipped`: this wall time does not run (DST gap policy "skip"). */
  skipped?: true;
}

export interface FireTime {
  /** The instant the schedule fires. For a skipped entry: the instant the clock jumped over its wall time. */
  at: Date;
  /** Wall clock in the schedule's zone, "2026-03-29 03:00:00" (UTC for interval and one-off triggers). */
  localTime: string;
  /** UTC offset in force at `at`, "+02:00". */
  utcOffset: string;
  dst?: DstFlag;
}

export function toFireTime(at: number, offset: number, dst?: DstFlag, wall = at + offset): FireTime {
  const fire: FireTime = { at: new Date(at), localTime: formatWall(wall), utcOffset: formatOffset(offset) };
  if (dst) fire.dst = dst;
  return fire;
}

/** Upper bound on fires per call, so a preview or backfill request cannot ask for unbounded work. */
export const MAX_FIRE_TIMES = 10_000;

export function clampCount(count: number): number {
  if (!Number.isFinite(count)) return count > 0 ? MAX_FIRE_TIMES : 0;
  return Math.min(MAX_FIRE_TIMES, Math.max(0, Math.floor(count)));
}
