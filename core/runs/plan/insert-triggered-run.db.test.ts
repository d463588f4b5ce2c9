// The one-statement trigger commits without waiting for the disk so the dispatchers hear it sooner, but
// its caller must still get the answer only once the run is on disk: an operator told "triggered" must not lose the
// run (and its audit row) to a crash a moment later.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PgBoss } from "pg-boss";
import { useTestDatabase, testPool } from "@/test/db";
import { insertSchedule, startTestBoss } from "@/test/run-fixtures";
import { triggerNow } from "@/core/schedules/trigger-now";
import { systemActor } from "@/core/auth/roles";
import { canFlushWal } from "@/core/db/flush-wal";
import { getHotPathPool } from "@/core/db/pool";
import type pg from "pg";

const db = useTestDatabase("insert_triggered_run");
let pool: pg.Pool;
let boss: PgBoss;

beforeAll(async () => {
  pool = testPool(db.url, 2);
  boss = await startTestBoss(db.url);
  await pool.query(`CREATE EXTENSION IF NOT EXISTS pageinspect`);
});

afterAll(async () => {
  await boss.stop({ graceful: false, close: true });
  await pool.end();
});

describe("trigger now in one statement", () => {
  it("answers only once the run's write is flushed to the WAL on disk", async () => {
    expect(await canFlushWal(pool)).toBe(true); // PostgreSQL 18, no standbys: the asynchronous commit is in use
    const scheduleId = await insertSchedule(pool, { handler: "demo.noop" });
    for (let i = 0; i < 20; i++) {
      const { runId } = await triggerNow(scheduleId, { reason: "durability" }, systemActor("test"), { boss });
      // The heap page holding the new run carries the LSN of the run's insert record; the commit record follows it.
      const { rows } = await pool.query<{ flushed: boolean; page: string; flush: string }>(
        `SELECT (page_header(get_raw_page('runs', (ctid::text::point)[0]::int))).lsn AS page, pg_current_wal_flush_lsn() AS flush,
                pg_current_wal_flush_lsn() >= (page_header(get_raw_page('runs', (ctid::text::point)[0]::int))).lsn AS flushed
           FROM runs WHERE id = $1`,
        [runId],
      );
      expect(rows[0], `run ${i}: page LSN ${rows[0]?.page} vs flushed ${rows[0]?.flush}`).toMatchObject({ flushed: true });
    }
    const { rows } = await pool.query(`SELECT count(*)::int AS n FROM runs WHERE schedule_id = $1 AND state = 'queued'`, [scheduleId]);
    expect(rows[0].n).toBe(20);
  });

  it("runs the statement on the generic plan: it is not planned again on every trigger", async () => {
    const scheduleId = await insertSchedule(pool, { handler: "demo.noop" });
    for (let i = 0; i < 8; i++) await triggerNow(scheduleId, { reason: "plans" }, systemActor("test"), { boss });
    // One trigger at a time: the hot-path pool ran them all on its one (kept) connection, where the named statement lives.
    const { rows } = await getHotPathPool().query<{ generic_plans: number; custom_plans: number }>(
      `SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE name LIKE 'vigil-trigger-%'`,
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]!.custom_plans).toBe(0);
    expect(rows[0]!.generic_plans).toBeGreaterThanOrEqual(8);
  });
});
