// Spreading a burst, Jenkins-style: each schedule gets a minute (or an interval phase) from a hash of its id, so the
// proposal is the same every time it is asked for, survives renames, and different schedules land on different
// minutes. Only what can move without changing what the schedule means to its owner is moved:
// - a cron whose minute field is one fixed value ("0 * * * *", "30 2 * * 1"): minute := hash mod 60;
// - a cron whose minute field is a step over the whole hour ("*/15", "0/15", "0-59/15", 60 divisible by the
//   step): "o-59/step" with o := hash mod step (same cadence, shifted within its period);
// - an interval: its anchor := 2000-01-01T00:00:00Z + (hash mod every) seconds (same cadence, another phase).
// Never moved: one-off triggers (their time is the point), crons firing every minute or on lists/ranges of minutes,
// and the schedules the operator keeps. Pure.
import { createHash } from "node:crypto";
import { triggerSchema, type Trigger } from "../schedules/trigger";

/** The reference instant hashed interval anchors count from (any instant before every schedule works). */
const ANCHOR_EPOCH_MS = Date.UTC(2000, 0, 1);

export type SpreadDecision = { kind: "move"; trigger: Trigger; change: string } | { kind: "keep"; reason: string };

/** A stable number from a schedule id (first 32 bits of its SHA-256). */
export function spreadHash(scheduleId: string): number {
  return createHash("sha256").update(scheduleId).digest().readUInt32BE(0);
}

export function proposeSpread(scheduleId: string, trigger: Trigger): SpreadDecision {
  const h = spreadHash(scheduleId);
  if (trigger.kind === "once") return { kind: "keep", reason: "a one-off fires at its fixed time" };
  if (trigger.kind === "interval") {
    const every = trigger.everySeconds;
    const offset = h % every;
    const anchor = new Date(ANCHOR_EPOCH_MS + offset * 1000).toISOString().replace(".000Z", "Z");
    const current = trigger.anchor !== undefined ? Date.parse(trigger.anchor) : null;
    if (current !== null && ((current - ANCHOR_EPOCH_MS) / 1000) % every === offset)
      return { kind: "keep", reason: "already at its hashed phase" };
    return {
      kind: "move",
      trigger: { ...trigger, anchor },
      change: `every ${every} s, phase ${offset} s (anchor ${anchor})`,
    };
  }
  const fields = trigger.cron.trim().split(/\s+/);
  const at = fields.length === 6 ? 1 : 0;
  const minute = fields[at]!;
  let next: string;
  if (/^\d{1,2}$/.test(minute)) {
    next = String(h % 60);
  } else {
    const step = /^(?:\*|0|0-59)\/(\d{1,2})$/.exec(minute);
    const n = step ? Number(step[1]) : 0;
    if (!step || n < 2 || 60 % n !== 0) {
      return {
        kind: "keep",
        reason:
          minute === "*"
            ? "fires every minute: there is no minute to move it to"
            : `its minute field (${minute}) is not one fixed minute or a step over the hour`,
      };
    }
    next = `${h % n}-59/${n}`;
  }
  if (next === minute || (minute.includes("/") && next.startsWith("0-") && /^(?:\*|0|0-59)\//.test(minute)))
    return { kind: "keep", reason: "already at its hashed minute" };
  const moved = [...fields];
  moved[at] = next;
  const cron = moved.join(" ");
  const parsed = triggerSchema.safeParse({ ...trigger, cron });
  if (!parsed.success) return { kind: "keep", reason: `the moved expression (${cron}) is not valid` };
  return { kind: "move", trigger: parsed.data, change: `${trigger.cron} → ${cron}` };
}
