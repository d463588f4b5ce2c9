// Retention on three back-dated days of history with a 1-day retention: expired finished runs and everything
// hanging off them are gone (runs, attempts, events, log lines, whole day partitions), running/queued/retrying/
// zombie runs of any age are kept with their traces, a schedule's longer retention keeps its runs and events,
// the daily summaries outlive the runs, the audit chain still verifies and records the retention action.
import { beforeAll, describe, expect, test } from "vitest";
import { testPool, useTestDatabase } from "../../test/db";
import { fillHistoryDay, insertHistorySchedules } from "../../test/history-fixtures";
import { verifyAudit } from "../audit/verify-audit";
import { getEnv } from "../env";
import { ensurePartitionDays, listDayPartitions } from "./ensure-partitions";
import { retentionSettingsFromEnv, type RetentionSettings } from "./retention-settings";
import { runRetention } from "./run-retention";

const db = useTestDatabase("retention");
const UNFINISHED = ["running", "queued", "retrying", "zombie", "planned"] as const;

describe("retention with 3 back-dated days and a 1-day retention", () => {
  let pool: ReturnType<typeof testPool>;
  let days: string[]; // today-3, today-2, today-1
  let plain: string; // default retention
  let longer: string; // retention_days = 5
  let edge: string; // default retention: runs whose rows lie in other days' partitions than their planned day
  const edgeRuns: Record<string, string> = {};
  const unfinished: Record<string, string> = {};
  let settings: RetentionSettings;

  beforeAll(async () => {
    pool = testPool(db.url);
    settings = { ...retentionSettingsFromEnv(getEnv()), runsDays: 1, logsDays: 1, onceMarkersDays: 1, alertsDays: 1 };
    const { rows } = await pool.query(`SELECT to_char(current_date - i, 'YYYY-MM-DD') AS d FROM generate_series(3, 1, -1) i`);
    days = rows.map((r) => r.d);
    for (const t of ["run_events", "run_logs"] as const) await ensurePartitionDays(pool, t, days);
    [plain, longer, edge] = (await insertHistorySchedules(pool, 3)) as [string, string, string];
    await pool.query(`UPDATE schedules SET retention_days = 5 WHERE id = $1`, [longer]);
    for (const d of days)
      await fillHistoryDay(pool, { day: d, scheduleIds: [plain, longer], everySeconds: 3600, logsPerRun: 2, partitioned: true });
    // Runs that are not finished, planned three days ago, each with an event and a log line on that day.
    for (const state of UNFINISHED) {
      const { rows: r } = await pool.query(
        `INSERT INTO runs (schedule_id, kind, planned_at, due_at, idempotency_key, state, handler, timeout_seconds, grace_seconds, attempt, created_at)
         VALUES ($1, 'manual', $2::date + interval '30 minutes', $2::date + interval '30 minutes', 'old-' || $3, $3, 'demo.noop', 30, 1, 1,
                 $2::date + interval '30 minutes')
         RETURNING id`,
        [plain, days[0], state],
      );
      unfinished[state] = r[0].id;
      await pool.query(
        `INSERT INTO run_events (run_id, type, message, at, day) VALUES ($1, 'enqueued', '', $2::date + interval '31 minutes', $2)`,
        [r[0].id, days[0]],
      );
      await pool.query(
        `INSERT INTO run_logs (run_id, attempt, level, message, at, day) VALUES ($1, 1, 'info', 'still here', $2::date, $2)`,
        [r[0].id, days[0]],
      );
    }
    // Runs kept (finished after the cutoff, or planned after it) whose rows were written on other days than their
    // planned day, each with one event per listed day (offsets from days[0]): a wrong bound on the runs a partition
    // keeps drops some of them.
    const edgeRun = async (name: string, o: { planned: string; created: string; finished: string; state: string; eventDays: number[] }) => {
      const at = (x: string) => `$2::date + interval '${x}'`;
      const { rows: r } = await pool.query(
        `INSERT INTO runs (schedule_id, kind, planned_at, due_at, idempotency_key, state, handler, timeout_seconds, grace_seconds, attempt,
                           created_at, started_at, finished_at)
         VALUES ($1, 'scheduled', ${at(o.planned)}, ${at(o.planned)}, 'edge-' || $3, $4, 'demo.noop', 30, 1, 1, ${at(o.created)},
                 ${at(o.created)}, ${at(o.finished)})
         RETURNING id`,
        [edge, days[0], name, o.state],
      );
      edgeRuns[name] = r[0].id;
      for (const d of o.eventDays) {
        await pool.query(
          `INSERT INTO run_events (run_id, type, message, at, day) VALUES ($1, 'progress', $3, $2::date + interval '1 hour', $2::date)`,
          [r[0].id, days[d], `day ${d}`],
        );
      }
    };
    // Planned in the first minute after the cutoff day began, by a planner looking ahead: its 'planned' event was
    // written the day before (a partition that expires), the rest on its own day.
    await edgeRun("planned-ahead", {
      planned: "2 days 1 minute",
      created: "1 day 23 hours 59 minutes",
      finished: "2 days 2 minutes",
      state: "succeeded",
      eventDays: [1, 2],
    });
    // Planned three days ago, ran until yesterday: an event on each of the three days.
    await edgeRun("long-running", {
      planned: "6 hours",
      created: "5 hours 59 minutes",
      finished: "2 days 12 hours",
      state: "succeeded",
      eventDays: [0, 1, 2],
    });
    // Failed three days ago, re-run (same run, next attempt) two days ago, finished after the cutoff.
    await edgeRun("re-run", {
      planned: "8 hours",
      created: "7 hours 59 minutes",
      finished: "2 days 1 hour",
      state: "succeeded",
      eventDays: [0, 1],
    });
    // Planned three days ago but written two days later (a backfill, a late start): no row on its planned day.
    await edgeRun("written-later", {
      planned: "23 hours",
      created: "1 day 3 hours",
      finished: "2 days 3 hours",
      state: "failed",
      eventDays: [1],
    });
    // A ctx.once marker whose run expires, one whose run is kept, both old.
    const expiring = (await pool.query(`SELECT id FROM runs WHERE schedule_id = $1 AND planned_at < $2::date LIMIT 1`, [plain, days[1]]))
      .rows[0].id;
    await pool.query(
      `INSERT INTO once_markers (key, run_id, created_at) VALUES ('gone', $1, now() - interval '3 days'), ('kept', $2, now() - interval '3 days')`,
      [expiring, unfinished.running],
    );
    await pool.query(`INSERT INTO users (id, email, password_hash) VALUES ('00000000-0000-0000-0000-00000000000a', 'r@x', 'x')`);
    await pool.query(
      `INSERT INTO sessions (id, user_id, expires_at) VALUES ('old', '00000000-0000-0000-0000-00000000000a', now() - interval '1 hour'),
                                                            ('live', '00000000-0000-0000-0000-00000000000a', now() + interval '1 hour')`,
    );
    await pool.query(
      `INSERT INTO login_attempts (email, ip, success, at) VALUES ('r@x', '1.2.3.4', false, now() - interval '3 days'), ('r@x', '1.2.3.4', false, now())`,
    );
  });

  test("a pass expires exactly what it should and keeps the rest", async () => {
    const before = await pool.query(
      `SELECT count(*)::int AS n FROM runs WHERE schedule_id = $1 AND planned_at < $2::date AND kind = 'scheduled'`,
      [plain, days[2]],
    );
    expect(before.rows[0].n).toBe(48);
    const expiredIds = (
      await pool.query(`SELECT id FROM runs WHERE schedule_id = $1 AND planned_at < $2::date AND kind = 'scheduled'`, [plain, days[2]])
    ).rows.map((r) => r.id);

    const report = await runRetention(pool, settings, { workerId: "test" });
    expect(report).not.toBeNull();
    expect(report!.runs).toBe(48);

    // Gone: the runs, their attempts, events and log lines, and whole day partitions of the two oldest days.
    for (const t of ["runs", "attempts", "run_events", "run_logs"]) {
      const col = t === "runs" ? "id" : "run_id";
      const n = await pool.query(`SELECT count(*)::int AS n FROM ${t} WHERE ${col} = ANY($1::uuid[])`, [expiredIds]);
      expect(n.rows[0].n, t).toBe(0);
    }
    for (const t of ["run_events", "run_logs"] as const) {
      const parts = (await listDayPartitions(pool, t)).map((p) => p.day);
      expect(parts).not.toContain(days[0]);
      expect(parts).not.toContain(days[1]);
      expect(parts).toContain(days[2]);
    }
    // Kept: yesterday's runs; every unfinished run of any age with its event and log line.
    const yesterday = await pool.query(`SELECT count(*)::int AS n FROM runs WHERE schedule_id = $1 AND planned_at >= $2::date`, [
      plain,
      days[2],
    ]);
    expect(yesterday.rows[0].n).toBe(24);
    for (const state of UNFINISHED) {
      const r = await pool.query(
        `SELECT r.state, (SELECT count(*)::int FROM run_events e WHERE e.run_id = r.id) AS events,
                (SELECT count(*)::int FROM run_logs l WHERE l.run_id = r.id) AS logs
           FROM runs r WHERE r.id = $1`,
        [unfinished[state]],
      );
      expect(r.rows[0], state).toEqual({ state, events: 1, logs: 1 });
    }
    // The schedule kept for 5 days keeps its runs, attempts and events (its log lines follow the global 1 day).
    const kept = await pool.query(
      `SELECT count(*)::int AS runs, (SELECT count(*)::int FROM run_events e JOIN runs r ON r.id = e.run_id WHERE r.schedule_id = $1) AS events,
              (SELECT count(*)::int FROM attempts a JOIN runs r ON r.id = a.run_id WHERE r.schedule_id = $1) AS attempts
         FROM runs WHERE schedule_id = $1`,
      [longer],
    );
    expect(kept.rows[0].runs).toBe(72);
    expect(kept.rows[0].events).toBe(72 * 3);
    expect(kept.rows[0].attempts).toBeGreaterThan(60);

    // Summaries outlive the runs: one row per schedule and day, counting what the runs did.
    const sums = await pool.query(
      `SELECT to_char(day, 'YYYY-MM-DD') AS day, total, succeeded, missed, skipped, hollow, on_time + late AS timed, lateness_max_ms
         FROM run_daily_summaries WHERE schedule_id = $1 ORDER BY day`,
      [plain],
    );
    expect(sums.rows.map((r) => r.day)).toEqual(days);
    expect(sums.rows[1]).toMatchObject({ total: 24, missed: 1, skipped: 1, hollow: 1, succeeded: 21, timed: 22 });
    expect(sums.rows[0].total).toBe(24 + UNFINISHED.length);

    // Everything else that grows.
    const markers = await pool.query(`SELECT key FROM once_markers ORDER BY key`);
    expect(markers.rows.map((r) => r.key)).toEqual(["kept"]);
    expect((await pool.query(`SELECT id FROM sessions`)).rows.map((r) => r.id)).toEqual(["live"]);
    expect((await pool.query(`SELECT count(*)::int AS n FROM login_attempts`)).rows[0].n).toBe(1);

    // The audit trail still verifies and says what retention removed.
    expect(await verifyAudit(pool)).toMatchObject({ ok: true });
    const audit = await pool.query(`SELECT actor_type, after FROM audit_events WHERE action = 'retention.expire'`);
    expect(audit.rows).toHaveLength(1);
    expect(audit.rows[0].actor_type).toBe("system");
    expect(audit.rows[0].after.runs).toBe(48);
    expect(audit.rows[0].after.partitions.length).toBe(4);

    const status = await pool.query(`SELECT worker_id, error, result FROM retention_status`);
    expect(status.rows[0]).toMatchObject({ worker_id: "test", error: null });
  });

  test("runs whose rows lie in other days' partitions than their planned day keep every row", async () => {
    for (const [name, id] of Object.entries(edgeRuns)) {
      const r = await pool.query(
        `SELECT (SELECT count(*)::int FROM runs WHERE id = $1) AS run,
                (SELECT array_agg(message ORDER BY message) FROM run_events WHERE run_id = $1) AS events`,
        [id],
      );
      const expected = {
        "planned-ahead": ["day 1", "day 2"],
        "long-running": ["day 0", "day 1", "day 2"],
        "re-run": ["day 0", "day 1"],
        "written-later": ["day 1"],
      }[name];
      expect(r.rows[0], name).toEqual({ run: 1, events: expected });
    }
  });

  test("a second pass finds nothing to do and writes no audit row", async () => {
    const report = await runRetention(pool, settings, { workerId: "test" });
    expect(report!.runs).toBe(0);
    expect(report!.partitionsDropped).toEqual([]);
    const audit = await pool.query(`SELECT count(*)::int AS n FROM audit_events WHERE action = 'retention.expire'`);
    expect(audit.rows[0].n).toBe(1);
    const sums = await pool.query(`SELECT count(*)::int AS n FROM run_daily_summaries WHERE schedule_id = $1`, [plain]);
    expect(sums.rows[0].n).toBe(3);
  });

  test("only one worker at a time: a pass while another holds the lock is skipped", async () => {
    const other = await pool.connect();
    try {
      await other.query(`SELECT pg_advisory_lock(746350)`);
      expect(await runRetention(pool, settings, { workerId: "second" })).toBeNull();
    } finally {
      await other.query(`SELECT pg_advisory_unlock(746350)`);
      other.release();
    }
  });
});
