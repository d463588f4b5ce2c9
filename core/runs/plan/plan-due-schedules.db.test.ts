import { describe, expect, it } from "vitest";
import { useTestDatabase } from "../../../test/db";
import { getPool } from "../../db/pool";
import { planDueSchedules } from "./plan-due-schedules";

useTestDatabase("plan_due_schedules");

const HORIZON = 120;
const q = async (text: string, params: unknown[] = []) => (await getPool().query(text, params)).rows;

/** `count` schedules firing every minute, inserted behind the API's back with the given cursor (NULL: never planned). */
async function insertSchedules(prefix: string, count: number, cursorAgoSeconds: number | null): Promise<void> {
  await q(
    `INSERT INTO schedules (name, handler, trigger, planned_through)
     SELECT $1 || g, 'demo.noop', '{"kind":"interval","everySeconds":60}',
            CASE WHEN $3::float8 IS NULL THEN NULL ELSE clock_timestamp() - make_interval(secs => $3::float8) END
       FROM generate_series(1, $2::int) g`,
    [prefix, count, cursorAgoSeconds],
  );
}

describe("planning in bounded slices", () => {
  it("plans the least advanced schedules first, a bounded slice per call, and catches up over calls", async () => {
    await insertSchedules("fresh-", 300, null);
    await insertSchedules("far-behind-", 100, 600);
    await insertSchedules("behind-", 100, 300);
    const first = await planDueSchedules(getPool(), { horizonSeconds: HORIZON, batchSize: 100, maxBatches: 1 });
    expect(first).toMatchObject({ schedules: 100, slices: 1, more: true });
    // The slice was the 100 whose cursor is furthest behind, and only they moved.
    const moved = await q(`SELECT name FROM schedules WHERE planned_through > clock_timestamp()`);
    expect(moved).toHaveLength(100);
    expect(moved.every((r) => r.name.startsWith("far-behind-"))).toBe(true);
    const second = await planDueSchedules(getPool(), { horizonSeconds: HORIZON, batchSize: 100, maxBatches: 1 });
    expect(second.schedules).toBe(100);
    expect((await q(`SELECT name FROM schedules WHERE planned_through > clock_timestamp() AND name LIKE 'behind-%'`)).length).toBe(100);

    // A budget of 0 still plans one slice; calls go on until nothing is due.
    let calls = 0;
    for (let more = true; more; calls++) {
      const r = await planDueSchedules(getPool(), { horizonSeconds: HORIZON, batchSize: 100, budgetMs: 0 });
      expect(r.slices).toBeLessThanOrEqual(1);
      more = r.more;
    }
    expect(calls).toBeLessThanOrEqual(5);
    expect((await q(`SELECT count(*)::int AS n FROM schedules WHERE coalesce(planned_through, created_at) < clock_timestamp()`))[0].n).toBe(
      0,
    );
  });

  it("gives planners running at once disjoint slices, and writes each fire once", async () => {
    await insertSchedules("shared-", 400, 120);
    const results = await Promise.all(
      [1, 2, 3, 4].map(() => planDueSchedules(getPool(), { horizonSeconds: HORIZON, batchSize: 100, maxBatches: 1 })),
    );
    // Four slices of 100: each schedule in exactly one of them, none planned twice, none left out.
    expect(results.reduce((n, r) => n + r.schedules, 0)).toBe(400);
    const [left] = await q(`SELECT count(*)::int AS n FROM schedules WHERE name LIKE 'shared-%' AND planned_through < clock_timestamp()`);
    expect(left.n).toBe(0);
    const dup = await q(
      `SELECT schedule_id, planned_at FROM runs r JOIN schedules s ON s.id = r.schedule_id WHERE s.name LIKE 'shared-%'
        GROUP BY 1, 2 HAVING count(*) > 1`,
    );
    expect(dup).toEqual([]);
  });

  it("moves the cursor to just before the next fire, so a rarely firing schedule is not re-planned every tick", async () => {
    const [s] = await q(
      `INSERT INTO schedules (name, handler, trigger, planned_through)
       VALUES ('daily', 'demo.noop', '{"kind":"cron","cron":"0 0 * * *","timezone":"UTC","dst":{"gap":"shift","repeat":"once"}}', clock_timestamp())
       RETURNING id`,
    );
    await planDueSchedules(getPool(), { horizonSeconds: HORIZON });
    const [row] = await q(
      `SELECT planned_through, date_trunc('day', clock_timestamp() + interval '${HORIZON} seconds') + interval '1 day' AS next_midnight,
              (SELECT count(*)::int FROM runs WHERE schedule_id = $1) AS runs
         FROM schedules WHERE id = $1`,
      [s.id],
    );
    // The next midnight after the horizon, minus 1 ms: every fire at or before the cursor has its row (none here).
    expect(row.planned_through.getTime()).toBe(row.next_midnight.getTime() - 1);
    const again = await planDueSchedules(getPool(), { horizonSeconds: HORIZON });
    expect(again.schedules).toBe(0);
  });
});
