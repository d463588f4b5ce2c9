import { describe, expect, it } from "vitest";
import { firePlanOf, planFires } from "../schedules/fire-plan";
import type { Schedule } from "../schedules/schedule-record";
import { triggerSchema } from "../schedules/trigger";
import { countDueFires, curveOf, MINUTE_MS, type MinuteWindow } from "./count-due-fires";

const window: MinuteWindow = { startMs: Date.UTC(2026, 11, 7, 0, 0), minutes: 1440 };

function schedule(id: string, trigger: unknown, createdAt: Date): Schedule {
  return {
    id,
    name: id,
    trigger: triggerSchema.parse(trigger),
    createdAt,
    startJitterMs: 0,
    paused: null,
    timezone: "UTC",
    tags: [],
  } as unknown as Schedule;
}

/** The slow way: every schedule planned on its own, exactly, in two halves (planFires returns at most 10,000). */
function bruteForce(schedules: Schedule[]): Int32Array {
  const curve = new Int32Array(window.minutes);
  const at = (m: number) => new Date(window.startMs + m * MINUTE_MS - 1);
  for (const s of schedules)
    for (const [from, until] of [
      [at(0), at(720)],
      [at(720), at(1440)],
    ] as const)
      for (const f of planFires(firePlanOf(s), { from, until }).fires)
        if (f.fate === "run") curve[Math.floor((f.plannedAt.getTime() - window.startMs) / MINUTE_MS)]!++;
  return curve;
}

describe("countDueFires", () => {
  it("interval schedules with any anchor count exactly as when each is planned on its own, with few plans", () => {
    let seed = 7;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const schedules: Schedule[] = [];
    for (let i = 0; i < 300; i++) {
      const every = [45, 60, 90, 300, 3600, 7][i % 6]!;
      const created = new Date(window.startMs - Math.floor(rand() * 86_400_000 * 3));
      schedules.push(schedule(`i${i}`, { kind: "interval", everySeconds: every }, created));
    }
    // A fresh one (anchor inside the window) and crons in two zones.
    schedules.push(schedule("fresh", { kind: "interval", everySeconds: 600 }, new Date(window.startMs + 3_600_000 + 1234)));
    for (let i = 0; i < 50; i++)
      schedules.push(schedule(`c${i}`, { kind: "cron", cron: `${i % 7} * * * *`, timezone: i % 2 ? "UTC" : "Asia/Kolkata" }, new Date(0)));
    const due = countDueFires(schedules, new Map(), window);
    expect(Array.from(curveOf(due, due.schedules, window))).toEqual(Array.from(bruteForce(schedules)));
    expect(due.plans).toBeLessThan(200);
  });
});
