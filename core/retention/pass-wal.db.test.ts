// What the retention pass does to the WAL the workers' commits wait behind: its own statements
// run with synchronous_commit off (its commits never wait on a flush; the workers' commits then flush less of its
// WAL), and the runs step can bound the WAL it writes per second.
import { afterAll, beforeAll, expect, test } from "vitest";
import { testPool, useTestDatabase } from "../../test/db";
import { cloneTemplate, startTestPostgres } from "../../test/postgres-for-tests";
import { fillHistoryDay, insertHistorySchedules } from "../../test/history-fixtures";
import { getEnv } from "../env";
import { ensurePartitionDays } from "./ensure-partitions";
import { expireRuns } from "./expire-runs";
import { retentionSettingsFromEnv } from "./retention-settings";
import { runRetention } from "./run-retention";
import { SERVER_SETTINGS } from "../../scripts/lib/postgres";

const db = useTestDatabase("pass-wal");
let pool: ReturnType<typeof testPool>;

beforeAll(async () => {
  // One connection: the pass's session is the one the checks below use after it.
  pool = testPool(db.url, 1);
});
afterAll(async () => {
  await pool.end();
});

const dayAgo = async (n: number) =>
  (await pool.query(`SELECT to_char(current_date - $1::int, 'YYYY-MM-DD') AS d`, [n])).rows[0].d as string;

test("the pass deletes runs with synchronous_commit off in its own session (the default), on when configured, and resets it after", async () => {
  // What each DELETE on runs ran with, recorded by a statement trigger in the deleting session itself.
  await pool.query(`CREATE TABLE seen_commit_setting (setting text NOT NULL)`);
  await pool.query(
    `CREATE FUNCTION record_commit_setting() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN INSERT INTO seen_commit_setting VALUES (current_setting('synchronous_commit')); RETURN NULL; END $$`,
  );
  await pool.query(`CREATE TRIGGER record_commit_setting AFTER DELETE ON runs FOR EACH STATEMENT EXECUTE FUNCTION record_commit_setting()`);
  try {
    const schedules = await insertHistorySchedules(pool, 2, "sync");
    const defaults = retentionSettingsFromEnv(getEnv());
    expect(defaults.synchronousCommit).toBe("off");
    for (const [n, synchronousCommit] of [
      [9, undefined],
      [8, "on"],
    ] as const) {
      const day = await dayAgo(n);
      for (const t of ["run_events", "run_logs"] as const) await ensurePartitionDays(pool, t, [day]);
      expect(await fillHistoryDay(pool, { day, scheduleIds: schedules, everySeconds: 3600, partitioned: true })).toBe(48);
      await pool.query(`TRUNCATE seen_commit_setting`);
      const settings = { ...defaults, runsDays: 1, logsDays: 1, batchSize: 10, ...(synchronousCommit ? { synchronousCommit } : {}) };
      const report = await runRetention(pool, settings, { workerId: "test" });
      expect(report!.runs).toBe(48);
      // The default WAL bound ("auto"): half of max_wal_size / (1 + checkpoint_completion_target) per checkpoint_timeout.
      expect(defaults.maxWalMbPerSecond).toBe("auto");
      const { rows: srv } = await pool.query(
        `SELECT pg_size_bytes(current_setting('max_wal_size'))::float8 AS m, current_setting('checkpoint_completion_target')::float8 AS t,
                extract(epoch FROM current_setting('checkpoint_timeout')::interval)::float8 AS s`,
      );
      expect(report!.walBoundBytesPerSecond).toBe(Math.round(srv[0].m / (1 + srv[0].t) / srv[0].s / 2));
      const { rows } = await pool.query(`SELECT setting, count(*)::int AS n FROM seen_commit_setting GROUP BY 1`);
      // 4 full batches and a short one, each DELETE under the pass's setting.
      expect(rows).toEqual([{ setting: synchronousCommit ?? "off", n: 5 }]);
      // The pooled connection goes back with the server's own setting.
      expect((await pool.query(`SELECT current_setting('synchronous_commit') AS s`)).rows[0].s).toBe("on");
    }
  } finally {
    await pool.query(`DROP TRIGGER record_commit_setting ON runs; DROP FUNCTION record_commit_setting(); DROP TABLE seen_commit_setting`);
  }
});

test("a WAL-rate bound makes the runs step take at least its own WAL over the bound, pausing between batches", async () => {
  // On a server of its own: the bound counts the whole server's WAL, so the other test files writing to the shared
  // server (more of them at once on a loaded machine) lengthened every pause without limit — a 4 kB/s bound against
  // their megabytes timed the test out. (With TEST_DATABASE_URL there is only the one server.)
  const server = process.env.TEST_DATABASE_URL ? null : await startTestPostgres();
  const own = testPool(server ? await cloneTemplate(server.adminUrl, "walrate") : db.url, 1);
  const day = (await own.query(`SELECT to_char(current_date - 5, 'YYYY-MM-DD') AS d`)).rows[0].d as string;
  const today = (await own.query(`SELECT to_char(current_date, 'YYYY-MM-DD') AS d`)).rows[0].d as string;
  for (const t of ["run_events", "run_logs"] as const) await ensurePartitionDays(own, t, [day]);
  const schedules = await insertHistorySchedules(own, 4, "walrate");
  expect(await fillHistoryDay(own, { day, scheduleIds: schedules, everySeconds: 3600, partitioned: true })).toBe(96);
  const c = await own.connect();
  // The WAL this session wrote (PostgreSQL 18's per-backend statistics, flushed at once): other test files write WAL
  // to the same server meanwhile, which the pacing may count too (it can only slow the step down) but this must not.
  const ownWal = async () => {
    await c.query(`SELECT pg_stat_force_next_flush()`);
    await c.query(`SELECT 1`);
    return Number((await c.query(`SELECT wal_bytes::bigint AS b FROM pg_stat_get_backend_wal(pg_backend_pid())`)).rows[0].b);
  };
  try {
    const wal0 = await ownWal();
    const bound = 4 * 1024; // bytes a second: far below what unpaced batches write (≈ 10 kB in ≈ 0.1 s here)
    const t0 = performance.now();
    // No duty-cycle pause: whatever pausing happens is the WAL bound's.
    const r = await expireRuns(c, { defaultDays: 1, batchSize: 8, summarizedBefore: today, pauseRatio: 0, maxWalBytesPerSecond: bound });
    const elapsed = performance.now() - t0;
    const wal = (await ownWal()) - wal0;
    expect(r.runs).toBe(96);
    expect(r.pausedMs).toBeGreaterThan(0);
    // 12 full batches are paced and the last (short, empty) one is not: all but its WAL is within the bound.
    expect(wal).toBeGreaterThan(bound);
    expect(elapsed / 1000).toBeGreaterThanOrEqual((0.8 * wal) / bound);
  } finally {
    c.release();
    await own.end();
    await server?.stop();
  }
}, 120_000);

test.skipIf(!!process.env.TEST_DATABASE_URL)(
  "the embedded server runs with the WAL settings a pass needs (vigil-server.conf), and ALTER SYSTEM still overrides them",
  async () => {
    const show = async () =>
      (await pool.query(`SELECT current_setting('max_wal_size') AS m, current_setting('wal_compression') AS w`)).rows[0] as {
        m: string;
        w: string;
      };
    expect(await show()).toEqual({ m: SERVER_SETTINGS.max_wal_size, w: SERVER_SETTINGS.wal_compression });
    // The bench's bulk load and an operator's ALTER SYSTEM take precedence (a config file, not a -c flag).
    await pool.query(`ALTER SYSTEM SET max_wal_size = '16GB'`);
    await pool.query(`SELECT pg_reload_conf()`);
    try {
      for (const deadline = Date.now() + 10_000; (await show()).m !== "16GB";) {
        if (Date.now() > deadline) throw new Error(`ALTER SYSTEM did not take: max_wal_size ${(await show()).m}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    } finally {
      await pool.query(`ALTER SYSTEM RESET max_wal_size`);
      await pool.query(`SELECT pg_reload_conf()`);
    }
  },
);
