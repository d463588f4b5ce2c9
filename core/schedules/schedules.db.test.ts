import { describe, expect, it } from "vitest";
import { useTestDatabase } from "../../test/db";
import { getPool } from "../db/pool";
import { ConflictError, ValidationError } from "../errors";
import { planDueSchedules } from "../runs/plan/plan-due-schedules";
import { createSchedule } from "./create-schedule";
import { updateSchedule } from "./update-schedule";
import { deleteSchedule } from "./delete-schedule";
import { listSchedules } from "./list-schedules";
import { getScheduleOrThrow } from "./schedule-record";

useTestDatabase("schedules_crud");
const alice = { type: "user" as const, id: null, label: "alice@example.com", role: "operator" as const };
const pool = () => getPool();
const q = async (sql: string, params: unknown[] = []) => (await pool().query(sql, params)).rows;

async function rejects<E extends Error>(p: Promise<unknown>, type: new (...a: never[]) => E): Promise<E> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(type);
  return err as E;
}

describe("schedules", () => {
  it("creates a schedule with defaults, a planning cursor at its creation, and an audit row", async () => {
    const s = await createSchedule(
      {
        name: "nightly-ledger",
        handler: "ledger.post",
        payload: { from: "cash", to: "fees", amount: 5 },
        trigger: { kind: "cron", cron: "0 2 * * *", timezone: "Europe/Berlin" },
        concurrencyGroup: "ledger",
        concurrencyLimit: 2,
      },
      alice,
    );
    expect(s).toMatchObject({
      name: "nightly-ledger",
      timezone: "Europe/Berlin",
      overlapPolicy: "skip",
      misfirePolicy: "run_once",
      revision: 1,
      concurrencyLimit: 2,
      paused: null,
    });
    expect(s.plannedThrough?.getTime()).toBe(s.createdAt.getTime());
    expect(s.triggerDescription).toMatch(/02:00/);
    const audit = await q(`SELECT actor, action, after FROM audit_events WHERE target_id = $1`, [s.id]);
    expect(audit).toEqual([expect.objectContaining({ actor: "alice@example.com", action: "schedule.create" })]);
    expect(audit[0].after.payload).toEqual({ from: "cash", to: "fees", amount: 5 });
  });

  it("refuses a taken name with a conflict naming the field, and stores nothing", async () => {
    const before = (await q(`SELECT count(*)::int AS n FROM schedules`))[0].n;
    const err = await rejects(
      createSchedule({ name: "nightly-ledger", handler: "demo.noop", trigger: { kind: "interval", everySeconds: 5 } }, alice),
      ConflictError,
    );
    expect(err.code).toBe("name_taken");
    expect(err.fields).toHaveProperty("name");
    expect((await q(`SELECT count(*)::int AS n FROM schedules`))[0].n).toBe(before);
  });

  it("refuses a stale revision and keeps the newer edit", async () => {
    const s = await createSchedule(
      { name: "edit-me", handler: "demo.sleep", payload: { ms: 10 }, trigger: { kind: "interval", everySeconds: 60 } },
      alice,
    );
    const edited = await updateSchedule(s.id, { revision: 1, description: "first edit" }, alice);
    expect(edited.revision).toBe(2);
    const err = await rejects(updateSchedule(s.id, { revision: 1, description: "lost update" }, alice), ConflictError);
    expect(err.code).toBe("stale_revision");
    expect((await getScheduleOrThrow(pool(), s.id)).description).toBe("first edit");
    const audit = await q(`SELECT before, after FROM audit_events WHERE target_id = $1 AND action = 'schedule.edit'`, [s.id]);
    expect(audit).toEqual([{ before: { description: "", revision: 1 }, after: { description: "first edit", revision: 2 } }]);
  });

  it("validates the payload against the handler when either changes", async () => {
    const s = await getScheduleOrThrow(pool(), (await q(`SELECT id FROM schedules WHERE name = 'edit-me'`))[0].id);
    const err = await rejects(updateSchedule(s.id, { revision: s.revision, handler: "ledger.post" }, alice), ValidationError);
    expect(Object.keys(err.fields ?? {})).toEqual(expect.arrayContaining(["payload"]));
    expect((await getScheduleOrThrow(pool(), s.id)).handler).toBe("demo.sleep");
  });

  it("re-plans on a trigger edit: future fires the new trigger drops end cancelled with a reason, shared ones stay", async () => {
    const s = await createSchedule({ name: "replan", handler: "demo.noop", trigger: { kind: "interval", everySeconds: 10 } }, alice);
    await planDueSchedules(pool(), { horizonSeconds: 120 });
    const old = await q(`SELECT id, planned_at FROM runs WHERE schedule_id = $1 ORDER BY planned_at`, [s.id]);
    expect(old.length).toBeGreaterThanOrEqual(11);

    const edited = await updateSchedule(s.id, { revision: 1, trigger: { kind: "interval", everySeconds: 15 } }, alice);
    await planDueSchedules(pool(), { horizonSeconds: 120 });
    const anchor = s.createdAt.getTime();
    const rows = await q(
      `SELECT r.id, r.planned_at, r.state, r.idempotency_key, (SELECT message FROM run_events e WHERE e.run_id = r.id AND e.type = 'replanned') AS why
         FROM runs r WHERE r.schedule_id = $1 AND r.planned_at > $2 ORDER BY r.planned_at, r.state`,
      [s.id, edited.updatedAt.toISOString()],
    );
    for (const r of rows) {
      const offset = r.planned_at.getTime() - anchor;
      if (r.state === "cancelled") {
        expect(offset % 15_000).not.toBe(0);
        expect(r.why).toMatch(/trigger was changed in revision 2/);
        expect(r.idempotency_key).toMatch(/^superseded:/);
      } else {
        expect(r.state).toBe("planned");
        expect(offset % 15_000).toBe(0);
      }
    }
    const live = rows.filter((r) => r.state === "planned").map((r) => r.planned_at.getTime());
    expect(new Set(live).size).toBe(live.length);
    // A fire at a 30 s multiple was planned before and kept: same row.
    const shared = old.find((r) => (r.planned_at.getTime() - anchor) % 30_000 === 0 && r.planned_at > edited.updatedAt);
    expect(rows.find((r) => r.id === shared?.id)?.state).toBe("planned");

    // Back to 10 s: the instants cancelled a moment ago are planned afresh, not left as gaps.
    await updateSchedule(s.id, { revision: 2, trigger: { kind: "interval", everySeconds: 10 } }, alice);
    await planDueSchedules(pool(), { horizonSeconds: 120 });
    const after = await q(
      `SELECT planned_at, count(*)::int AS n FROM runs WHERE schedule_id = $1 AND state = 'planned' AND kind = 'scheduled'
        GROUP BY planned_at ORDER BY planned_at`,
      [s.id],
    );
    expect(after.every((r) => r.n === 1 && (r.planned_at.getTime() - anchor) % 10_000 === 0)).toBe(true);
    expect(after.length).toBeGreaterThanOrEqual(11);
  });

  it("applies an edit to runs that have not started", async () => {
    const s = await createSchedule(
      { name: "payload-edit", handler: "demo.sleep", payload: { ms: 1 }, trigger: { kind: "interval", everySeconds: 5 } },
      alice,
    );
    await planDueSchedules(pool(), { horizonSeconds: 60 });
    await updateSchedule(s.id, { revision: 1, payload: { ms: 2 } }, alice);
    const payloads = await q(`SELECT DISTINCT payload FROM runs WHERE schedule_id = $1 AND state = 'planned'`, [s.id]);
    expect(payloads).toEqual([{ payload: { ms: 2, records: 1 } }]);
  });

  it("deletes softly: frees the name, cancels not-started runs, audits", async () => {
    const s = await createSchedule({ name: "short-lived", handler: "demo.noop", trigger: { kind: "interval", everySeconds: 5 } }, alice);
    await planDueSchedules(pool(), { horizonSeconds: 60 });
    const r = await deleteSchedule(s.id, alice, { reason: "no longer needed" });
    expect(r.cancelledRuns).toBeGreaterThan(5);
    expect(await q(`SELECT DISTINCT state FROM runs WHERE schedule_id = $1`, [s.id])).toEqual([{ state: "cancelled" }]);
    expect((await q(`SELECT reason FROM audit_events WHERE target_id = $1 AND action = 'schedule.delete'`, [s.id]))[0].reason).toBe(
      "no longer needed",
    );
    const again = await createSchedule(
      { name: "short-lived", handler: "demo.noop", trigger: { kind: "interval", everySeconds: 5 } },
      alice,
    );
    expect(again.id).not.toBe(s.id);
    expect((await listSchedules(pool())).map((x) => x.id)).not.toContain(s.id);
  });

  it("lists schedules with next fire, last outcome and 24 h trouble counts", async () => {
    const s = await createSchedule({ name: "listed", handler: "demo.noop", trigger: { kind: "interval", everySeconds: 30 } }, alice);
    await planDueSchedules(pool(), { horizonSeconds: 120 });
    await q(
      `INSERT INTO runs (schedule_id, kind, planned_at, due_at, idempotency_key, state, handler, timeout_seconds, grace_seconds, lateness_ms, started_at, finished_at)
       VALUES ($1, 'backfill', now() - interval '1 hour', now() - interval '1 hour', 'x1', 'succeeded', 'demo.noop', 5, 1, 2500, now() - interval '1 hour', now() - interval '1 hour'),
              ($1, 'backfill', now() - interval '2 hour', now() - interval '2 hour', 'x2', 'missed', 'demo.noop', 5, 1, NULL, NULL, NULL)`,
      [s.id],
    );
    const item = (await listSchedules(pool(), { q: "listed" }))[0]!;
    expect(item.nextFireAt?.getTime()).toBeGreaterThan(Date.now() - 60_000);
    expect(item.lastRun).toMatchObject({ state: "succeeded", latenessMs: 2500 });
    expect(item.counts24h).toEqual({ late: 1, missed: 1, hollow: 0, failed: 0 });
    expect(item.recentLateness).toEqual([2500]);
  });
});
