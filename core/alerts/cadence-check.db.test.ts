// The cadence alert: a schedule's rows over the last hour against its plan. A planned row deleted behind the
// ledger's back (a gap) opens an alert naming the instant; rows that match again resolve it; a row at an instant the
// plan never fires (drift) alerts too. Fires a calendar excluded or moved (rows written by the real planner) are no
// gap and no drift, also when the move crosses the window's edge.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import pg from "pg";
import { useTestDatabase, testPool } from "../../test/db";
import { insertWorker } from "../../test/alert-fixtures";
import { planScheduleThrough } from "../runs/plan/plan-due-schedules";
import { getScheduleOrThrow } from "../schedules/schedule-record";
import { evaluateAlerts, type EvaluateAlertsOptions } from "./evaluate-alerts";

const db = useTestDatabase("cadence_alert");
let pool: pg.Pool;
const opts: EvaluateAlertsOptions = {
  deadAfterMs: 10_000,
  plannerLagThresholdMs: 5_000,
  latenessWindowSeconds: 600,
  kinds: ["cadence"],
  cadenceEveryMs: 0,
};
const evaluate = () => evaluateAlerts(pool, opts);
const q = async (sql: string, params: unknown[] = []) => (await pool.query(sql, params)).rows;
let scheduleId = "";

/** Rows for every minute of the last two hours (and the next), as the planner writes them. */
async function recordEveryMinute(): Promise<void> {
  await q(
    `INSERT INTO runs (schedule_id, kind, planned_at, due_at, idempotency_key, state, handler, timeout_seconds, grace_seconds)
     SELECT $1::uuid, 'scheduled', t, t, $1 || ':' || to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'succeeded', 'demo.noop', 60, 5
       FROM generate_series(date_trunc('minute', now()) - interval '120 minutes', date_trunc('minute', now()) + interval '1 minute', interval '1 minute') t
     ON CONFLICT DO NOTHING`,
    [scheduleId],
  );
}

beforeAll(async () => {
  pool = testPool(db.url, 4);
  await insertWorker(pool, { heartbeatAgoMs: 0 });
  const rows = await q(
    `INSERT INTO schedules (name, handler, trigger, timezone, created_at, updated_at, planned_through)
     VALUES ('every-minute', 'demo.noop', '{"kind":"cron","cron":"* * * * *","timezone":"UTC","dst":{"gap":"shift","repeat":"once"}}',
             'UTC', now() - interval '3 hours', now() - interval '3 hours', date_trunc('minute', now()) + interval '1 minute')
     RETURNING id`,
  );
  scheduleId = rows[0].id;
});
afterAll(async () => {
  await pool.end();
});
beforeEach(async () => {
  await q(`DELETE FROM alert_deliveries; DELETE FROM alerts; DELETE FROM runs`);
  await recordEveryMinute();
});

const openCadence = () => q(`SELECT message, data, resolved_at, resolution FROM alerts WHERE kind = 'cadence' ORDER BY opened_at`);

describe("cadence alert", () => {
  it("rows matching the plan: no alert", async () => {
    const r = await evaluate();
    expect(r.ran).toBe(true);
    expect(r.opened).toEqual([]);
    expect(await openCadence()).toEqual([]);
  });

  it("a planned row deleted directly opens an alert naming the instant; putting it back resolves it", async () => {
    const gone = await q(
      `DELETE FROM runs WHERE schedule_id = $1 AND planned_at = date_trunc('minute', now()) - interval '20 minutes' RETURNING planned_at`,
      [scheduleId],
    );
    const instant = (gone[0].planned_at as Date).toISOString();
    const r = await evaluate();
    expect(r.opened.map((a) => a.dedupeKey)).toEqual([`cadence:${scheduleId}`]);
    const [alert] = await openCadence();
    expect(alert.message).toContain(`every-minute: 1 forecast fire has no row (${instant})`);
    expect(alert.data).toMatchObject({ missing: [instant], missingCount: 1, unexpectedCount: 0 });

    await recordEveryMinute();
    const r2 = await evaluate();
    expect(r2.resolved.map((a) => a.dedupeKey)).toEqual([`cadence:${scheduleId}`]);
    const [resolved] = await openCadence();
    expect(resolved.resolved_at).not.toBeNull();
    expect(resolved.resolution).toMatch(/match the forecast again/);
  });

  it("a row at an instant the plan does not fire (drift) alerts; a superseded row does not", async () => {
    await q(
      `INSERT INTO runs (schedule_id, kind, planned_at, due_at, idempotency_key, state, handler, timeout_seconds, grace_seconds)
       SELECT $1::uuid, 'scheduled', t, t, $1 || ':drift', 'succeeded', 'demo.noop', 60, 5
         FROM (SELECT date_trunc('minute', now()) - interval '30 minutes' + interval '30 seconds' AS t) x`,
      [scheduleId],
    );
    await evaluate();
    const [alert] = await openCadence();
    expect(alert.message).toMatch(/1 row is at an instant the plan does not fire \(\S+:30\.000Z\)/);
    await q(
      `UPDATE runs SET state = 'cancelled', idempotency_key = 'superseded:' || id || ':' || idempotency_key WHERE idempotency_key = $1`,
      [`${scheduleId}:drift`],
    );
    const r = await evaluate();
    expect(r.resolved).toHaveLength(1);
  });

  it("fires a calendar excluded or moved (across the window's edges too) are neither a gap nor drift", async () => {
    const t = (await q(`SELECT date_trunc('minute', now()) AS t`))[0].t.getTime() as number;
    const at = (minutes: number, seconds = 0) => new Date(t + minutes * 60_000 + seconds * 1000).toISOString();
    const [freeze, maintenance] = await q(
      `INSERT INTO calendars (name, timezone, rules, created_by)
       VALUES ('Freeze', 'UTC', $1, 'test'), ('Maintenance', 'UTC', $2, 'test') RETURNING id`,
      [
        { dates: [], weekdays: [], windows: [], ranges: [{ start: at(-40, 10), end: at(-35) }] },
        {
          dates: [],
          weekdays: [],
          windows: [],
          // The window checked is about (now − 65 min, now − 5 min]: the first range moves a fire from before it into
          // it, the second one from inside it to after it.
          ranges: [
            { start: at(-68, 10), end: at(-62, 30) },
            { start: at(-8, 10), end: at(-2, 30) },
          ],
        },
      ],
    );
    const [cal] = await q(
      `INSERT INTO schedules (name, handler, trigger, timezone, created_at, updated_at)
       VALUES ('every-minute-calendars', 'demo.noop', '{"kind":"cron","cron":"* * * * *","timezone":"UTC","dst":{"gap":"shift","repeat":"once"}}',
               'UTC', now() - interval '3 hours', now() - interval '3 hours')
       RETURNING id`,
    );
    await q(
      `INSERT INTO schedule_calendars (schedule_id, calendar_id, policy, position) VALUES ($1, $2, 'skip', 0), ($1, $3, 'shift_next', 1)`,
      [cal.id, freeze.id, maintenance.id],
    );
    await planScheduleThrough(pool, await getScheduleOrThrow(pool, cal.id), new Date(t + 60_000));
    const written = await q(
      `SELECT count(*) FILTER (WHERE state = 'excluded')::int AS excluded, count(*) FILTER (WHERE planned_at <> nominal_at)::int AS moved,
              array_agg(planned_at ORDER BY planned_at) FILTER (WHERE planned_at <> nominal_at) AS moved_to
         FROM runs WHERE schedule_id = $1`,
      [cal.id],
    );
    // Freeze skips 4 fires; each Maintenance range blocks 6, moves the first to its end and excludes the other 5 (collision).
    expect(written[0]).toMatchObject({ excluded: 4 + 5 + 5, moved: 2 });
    expect(written[0].moved_to.map((d: Date) => d.toISOString())).toEqual([at(-62, 30), at(-2, 30)]);

    const r = await evaluate();
    expect(r.ran).toBe(true);
    expect(await openCadence()).toEqual([]);

    // The check still sees a gap among them: an excluded row deleted behind the ledger's back.
    await q(`DELETE FROM runs WHERE schedule_id = $1 AND planned_at = $2`, [cal.id, at(-38)]);
    await evaluate();
    const [alert] = await openCadence();
    expect(alert.message).toContain(`every-minute-calendars: 1 forecast fire has no row (${at(-38)})`);
  });
});
