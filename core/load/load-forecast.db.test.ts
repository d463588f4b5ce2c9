// The load forecast and the spread action against a real database: curves from the plan, bunching against a group's
// limit with measured durations, group and tag scopes, a spread that is deterministic, writes nothing as a dry run,
// and is applied through the normal edit path with its audit rows.
import { beforeAll, describe, expect, it } from "vitest";
import { useTestDatabase } from "../../test/db";
import { waitFor } from "../../test/wait-for";
import { getPool } from "../db/pool";
import { createSchedule } from "../schedules/create-schedule";
import { forgetLoadInputs, getLoadForecast, type LoadTiming } from "./load-forecast";
import { forgetRunDurations } from "./median-run-durations";
import { spreadLoad } from "./spread-load";

useTestDatabase("load_forecast");
const bob = { type: "user" as const, id: null, label: "bob@example.com", role: "operator" as const };
const q = async (sql: string, params: unknown[] = []) => (await getPool().query(sql, params)).rows;
const ids: Record<string, string> = {};

beforeAll(async () => {
  // 30 hourly schedules at minute 0 in group "nightly" (limit 2), each measured at 60 s per run; 10 of them tagged etl.
  for (let i = 0; i < 30; i++) {
    const s = await createSchedule(
      {
        name: `hourly-${i}`,
        handler: "demo.noop",
        trigger: { kind: "cron", cron: "0 * * * *", timezone: "UTC" },
        concurrencyGroup: "nightly",
        concurrencyLimit: 2,
        tags: i < 10 ? ["etl"] : [],
      },
      bob,
    );
    ids[s.name] = s.id;
  }
  await q(
    `INSERT INTO runs (schedule_id, kind, planned_at, due_at, idempotency_key, state, handler, timeout_seconds, grace_seconds,
                       attempt, started_at, finished_at, duration_ms)
     SELECT s.id, 'manual', now() - k * interval '1 hour', now() - k * interval '1 hour', 'seed:' || s.id || ':' || k, 'succeeded',
            'demo.noop', 300, 5, 1, now() - k * interval '1 hour', now() - k * interval '1 hour' + interval '60 seconds', 60000
       FROM schedules s CROSS JOIN generate_series(1, 3) k WHERE s.concurrency_group = 'nightly'`,
  );
  // Outside the group: an every-5-minutes interval tagged etl, and a one-off.
  const every = await createSchedule(
    { name: "every-5m", handler: "demo.noop", trigger: { kind: "interval", everySeconds: 300 }, tags: ["etl"] },
    bob,
  );
  ids[every.name] = every.id;
  const once = await createSchedule(
    {
      name: "one-off",
      handler: "demo.noop",
      trigger: { kind: "once", at: new Date(Date.now() + 3 * 3_600_000).toISOString() },
      tags: ["etl"],
    },
    bob,
  );
  ids[once.name] = once.id;
  forgetRunDurations();
});

describe("load forecast", () => {
  it("counts due runs per minute for the fleet, a group and a tag, from the plan", async () => {
    const fleet = await getLoadForecast(getPool(), { window: "24h", by: "fleet" });
    expect(fleet.curve.points).toHaveLength(1440);
    expect(fleet.curve.total).toBe(30 * 24 + 288 + 1);
    expect(fleet.curve.peak.due).toBeGreaterThanOrEqual(30);
    expect(new Date(fleet.curve.peak.at!).getUTCMinutes()).toBe(0);
    expect(fleet.options).toEqual({ groups: ["nightly"], tags: ["etl"] });

    const group = await getLoadForecast(getPool(), { window: "24h", by: "group", key: "nightly" });
    expect(group.schedules).toBe(30);
    expect(group.curve.total).toBe(30 * 24);
    expect(group.curve.points.filter((p) => p.due > 0).every((p) => p.due === 30 && new Date(p.at).getUTCMinutes() === 0)).toBe(true);

    const tag = await getLoadForecast(getPool(), { window: "24h", by: "tag", key: "etl" });
    expect(tag.schedules).toBe(12);
    expect(tag.curve.total).toBe(10 * 24 + 288 + 1);

    const week = await getLoadForecast(getPool(), { window: "7d", by: "group", key: "nightly" });
    expect(week.curve.pointMinutes).toBe(10);
    expect(week.curve.points).toHaveLength(1008);
    expect(week.curve.total).toBe(30 * 24 * 7);
  });

  it("marks each top of the hour as a burst: 30 due against a limit of 2 at 60 s each → the last starts 14 min late", async () => {
    const f = await getLoadForecast(getPool(), { window: "24h", by: "group", key: "nightly" });
    expect(f.groups).toEqual([
      expect.objectContaining({ name: "nightly", limit: 2, schedules: 30, peakPerMinute: 30, bunchedMinutes: 24, durationsMeasured: 30 }),
    ]);
    expect(f.groups[0]!.worstLatenessMs).toBe(14 * 60_000);
    expect(f.bursts).toHaveLength(24);
    expect(f.bursts[0]).toMatchObject({ group: "nightly", due: 30, limit: 2, lastStartLatenessMs: 14 * 60_000, meanDurationMs: 60_000 });
    // The tag's view shows the group's bursts too: the limit is shared by the whole group.
    const tag = await getLoadForecast(getPool(), { window: "24h", by: "tag", key: "etl" });
    expect(tag.bursts[0]).toMatchObject({ group: "nightly", due: 30 });
    expect(tag.groups[0]).toMatchObject({ name: "nightly", schedules: 10 });
  });

  it("reads again only the schedules that changed, and answers exactly as a fresh read does", async () => {
    const fleet = { window: "24h", by: "fleet" } as const;
    const timed = async () => {
      const t = {} as LoadTiming;
      const answer = await getLoadForecast(getPool(), fleet, t);
      return { answer, reread: t.reread };
    };
    const fresh = async () => {
      forgetLoadInputs();
      return (await getLoadForecast(getPool(), fleet)).curve.total;
    };
    await timed();
    expect((await timed()).reread).toBe(0);
    const total = (await timed()).answer.curve.total;
    // A pause of 2 hours: one row read, and the count is the one a fresh read gives.
    await q(`UPDATE schedules SET paused_at = now(), paused_until = clock_timestamp() + interval '2 hours' WHERE name = 'hourly-29'`);
    const paused = await timed();
    expect(paused.reread).toBe(1);
    expect(paused.answer.curve.total).toBeLessThan(total);
    expect(paused.answer.curve.total).toBe(await fresh());
    // A pause whose until passes is read again once it has (the record reads as not paused from then on).
    await q(`UPDATE schedules SET paused_until = clock_timestamp() + interval '1 second' WHERE name = 'hourly-29'`);
    await timed();
    await waitFor("the ended pause to count again", async () => (await timed()).answer.curve.total === total, { timeoutMs: 10_000 });
    // A group's limit (a small table): everything is read again.
    await q(`UPDATE concurrency_groups SET max_running = 3 WHERE name = 'nightly'`);
    const limit = await timed();
    expect(limit.reread).toBe(32);
    expect(limit.answer.groups[0]!.limit).toBe(3);
    await q(`UPDATE concurrency_groups SET max_running = 2 WHERE name = 'nightly'`);
    // A deleted schedule leaves the count without any row read.
    const every = await q(`UPDATE schedules SET deleted_at = now() WHERE name = 'every-5m' RETURNING id`);
    const deleted = await timed();
    expect(deleted.answer.curve.total).toBe(total - 288);
    expect(deleted.answer.curve.total).toBe(await fresh());
    await q(`UPDATE schedules SET deleted_at = NULL WHERE id = $1`, [every[0].id]);
    expect((await timed()).answer.curve.total).toBe(total);
  });
});

describe("spread", () => {
  it("a dry run proposes the same hashed minutes every time, previews a flatter curve, and writes nothing", async () => {
    const before = await q(`SELECT (SELECT count(*) FROM audit_events) AS audits, (SELECT sum(revision) FROM schedules) AS revisions`);
    const a = await spreadLoad({ by: "group", key: "nightly", keep: [ids["hourly-0"]] }, bob);
    const b = await spreadLoad({ by: "group", key: "nightly", keep: [ids["hourly-0"]] }, bob);
    expect(a.dryRun).toBe(true);
    expect(a.applied).toBe(0);
    expect(a.moved.map((m) => m.change)).toEqual(b.moved.map((m) => m.change));
    // Besides the operator's keep, a schedule whose hashed minute is 0 (its id decides: about one in 60) stays.
    expect(a.kept).toContainEqual({ id: ids["hourly-0"], name: "hourly-0", reason: "kept by the operator" });
    for (const k of a.kept.filter((k) => k.id !== ids["hourly-0"])) expect(k.reason).toBe("already at its hashed minute");
    expect(a.moved.length + a.kept.length).toBe(30);
    expect(a.moved.length).toBeGreaterThan(20);
    for (const m of a.moved) expect(m.change).toMatch(/^0 \* \* \* \* → \d{1,2} \* \* \* \*$/);
    expect(a.before.curve.peak.due).toBe(30);
    expect(a.after.curve.peak.due).toBeLessThan(6);
    expect(a.after.curve.total).toBe(a.before.curve.total);
    expect(a.after.groups[0]!.worstLatenessMs ?? 0).toBeLessThan(a.before.groups[0]!.worstLatenessMs!);
    const after = await q(`SELECT (SELECT count(*) FROM audit_events) AS audits, (SELECT sum(revision) FROM schedules) AS revisions`);
    expect(after).toEqual(before);
  });

  it("keeps one-off triggers and moves an interval by its anchor", async () => {
    const r = await spreadLoad({ by: "tag", key: "etl" }, bob);
    expect(r.kept).toContainEqual({ id: ids["one-off"], name: "one-off", reason: "a one-off fires at its fixed time" });
    const interval = r.moved.find((m) => m.id === ids["every-5m"])!;
    expect(interval.change).toMatch(/^every 300 s, phase \d+ s \(anchor 2000-01-01T00:0\d:\d\dZ\)$/);
  });

  it("applying edits each moved schedule (revision, trigger) with one audit row each plus one for the action", async () => {
    const preview = await spreadLoad({ by: "group", key: "nightly" }, bob);
    const audits = Number((await q(`SELECT count(*) AS n FROM audit_events`))[0].n);
    const r = await spreadLoad({ by: "group", key: "nightly", dryRun: false }, bob);
    expect(r.applied).toBe(preview.moved.length);
    const rows = await q(`SELECT action, target_type, target_id, after FROM audit_events ORDER BY id DESC LIMIT $1`, [r.applied + 1]);
    expect(rows[0]).toMatchObject({ action: "schedules.spread", target_type: "group", target_id: "nightly" });
    expect(rows[0].after.moved).toHaveLength(r.applied);
    expect(rows.slice(1).every((x) => x.action === "schedule.edit")).toBe(true);
    expect(Number((await q(`SELECT count(*) AS n FROM audit_events`))[0].n)).toBe(audits + r.applied + 1);
    const crons = await q(`SELECT trigger->>'cron' AS cron, revision FROM schedules WHERE concurrency_group = 'nightly' ORDER BY name`);
    expect(new Set(crons.map((c) => c.cron)).size).toBeGreaterThan(15);
    // What was previewed is what the fleet now looks like.
    const now = await getLoadForecast(getPool(), { window: "24h", by: "group", key: "nightly" });
    expect(now.curve.peak.due).toBe(preview.after.curve.peak.due);
    // Applied again: every schedule is at its hashed minute already.
    const again = await spreadLoad({ by: "group", key: "nightly" }, bob);
    expect(again.moved).toEqual([]);
  });

  it("refuses an empty scope and bad input with field messages", async () => {
    await expect(spreadLoad({ by: "group", key: "nope" }, bob)).rejects.toMatchObject({
      fields: { key: "No schedule is in the group nope" },
    });
    await expect(spreadLoad({ by: "fleet", key: "x" }, bob)).rejects.toMatchObject({ status: 422 });
  });
});
