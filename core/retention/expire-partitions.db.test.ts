// A day partition's DETACH … CONCURRENTLY waits for every transaction using the table when it began. A worker's
// transaction that outlasts the pass's short lock_timeout (a claim or finish batch on a loaded machine) must make it
// wait, not fail: the pass used to fail on it, and its next pass's FINALIZE again.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { testPool, useTestDatabase } from "../../test/db";
import { ensurePartitionDays, listDayPartitions } from "./ensure-partitions";
import { expirePartitions } from "./expire-partitions";

const db = useTestDatabase("expire_partitions");

describe("expiring a day partition while a worker's transaction is open", () => {
  let pool: ReturnType<typeof testPool>;
  beforeAll(() => {
    pool = testPool(db.url);
  });
  afterAll(async () => {
    await pool.end();
  });

  test("the detach waits past the pass's lock_timeout for the transaction to end, then drops the day", async () => {
    const { rows } = await pool.query<{ d: string }>(`SELECT to_char(current_date - 5, 'YYYY-MM-DD') AS d`);
    const day = rows[0]!.d;
    await ensurePartitionDays(pool, "run_events", [day]);
    await pool.query(`INSERT INTO run_events (run_id, type, day) VALUES (gen_random_uuid(), 'finished', $1::date)`, [day]);
    const holder = await pool.connect();
    const pass = await pool.connect();
    try {
      // A worker writing today's events, its transaction open for 2 s.
      await holder.query("BEGIN");
      await holder.query(`INSERT INTO run_events (run_id, type) VALUES (gen_random_uuid(), 'started')`);
      const commit = new Promise<void>((resolve, reject) => setTimeout(() => holder.query("COMMIT").then(() => resolve(), reject), 2000));
      await pass.query(`SET lock_timeout = '300ms'`);
      const started = performance.now();
      const expired = await expirePartitions(pass, {
        table: "run_events",
        horizonDays: 1,
        runsDays: 1,
        keep: "existing_runs",
        planAheadSeconds: 60,
      });
      await commit;
      expect(expired.map((e) => e.day)).toContain(day);
      expect(performance.now() - started).toBeGreaterThan(1500);
      expect((await listDayPartitions(pool, "run_events")).map((p) => p.day)).not.toContain(day);
      // The pass's own lock_timeout is back for its other statements.
      expect((await pass.query(`SHOW lock_timeout`)).rows[0].lock_timeout).toBe("300ms");
    } finally {
      await holder.query("ROLLBACK").catch(() => undefined);
      holder.release();
      pass.release();
    }
  });
});
