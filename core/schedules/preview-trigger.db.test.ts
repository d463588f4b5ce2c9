// The schedule page's "Next fires" for a saved schedule: the trigger's next instants with what the fire plan does
// with each (its calendars, its end date), the same fates the timeline forecast draws.
import { describe, expect, it } from "vitest";
import { useTestDatabase } from "../../test/db";
import { createCalendar } from "../calendars/save-calendar";
import { dbNow, getPool } from "../db/pool";
import { createSchedule } from "./create-schedule";
import { previewInputSchema, previewTrigger } from "./preview-trigger";

useTestDatabase("preview_trigger");
const alice = { type: "user" as const, id: null, label: "alice@example.com", role: "admin" as const };

describe("next fires of a saved schedule", () => {
  it("carry the plan's fate: a calendar's excluded and moved fires, and none after the end date", async () => {
    const now = await dbNow(getPool());
    const H = 3_600_000;
    const hour = Math.ceil(now.getTime() / H) * H; // the next top of the hour
    const iso = (ms: number) => new Date(ms).toISOString();
    await createCalendar(
      { name: "Skip one", timezone: "UTC", ranges: [{ start: iso(hour + H - 1000), end: iso(hour + H + 1000) }] },
      alice,
    );
    await createCalendar(
      { name: "Move one", timezone: "UTC", ranges: [{ start: iso(hour + 2 * H - 1000), end: iso(hour + 2 * H + 60_000) }] },
      alice,
    );
    const trigger = { kind: "cron" as const, cron: "0 * * * *", timezone: "UTC" };
    const s = await createSchedule(
      {
        name: "hourly",
        handler: "demo.noop",
        trigger,
        endsAt: iso(hour + 3 * H + 1000),
        calendars: [
          { calendar: "Skip one", policy: "skip" },
          { calendar: "Move one", policy: "shift_next" },
        ],
      },
      alice,
    );
    const input = previewInputSchema.parse({ trigger, count: 5, scheduleId: s.id });
    const r = await previewTrigger(getPool(), input);
    expect(r.fires.map((f) => [f.at, f.plan?.fate, f.plan?.plannedAt])).toEqual([
      [iso(hour), "run", iso(hour)],
      [iso(hour + H), "excluded", iso(hour + H)],
      [iso(hour + 2 * H), "run", iso(hour + 2 * H + 60_000)],
      [iso(hour + 3 * H), "run", iso(hour + 3 * H)],
      [iso(hour + 4 * H), "ended", iso(hour + 4 * H)],
    ]);
    expect(r.fires[1]!.plan!.reason).toMatch(/^excluded by calendar "Skip one"/);
    expect(r.fires[2]!.plan!.reason).toMatch(/^moved from .* by calendar "Move one"/);

    // Without a schedule (the form of a new one): the trigger alone.
    const bare = await previewTrigger(getPool(), previewInputSchema.parse({ trigger, count: 2 }));
    expect(bare.fires.every((f) => f.plan === undefined)).toBe(true);
  });
});
