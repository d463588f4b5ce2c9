// Upgrade in place: a database built and filled by the previous release's migrations (everything before the
// partitioning one) migrates to the partitioned layout keeping every run, event, log line, attempt and audit row,
// with the audit chain still verifying and ids/sequences continuing where they were.
import { afterAll, expect, inject, test } from "vitest";
import pg from "pg";
import { migrate } from "../db/migrate";
import { dropDatabase, withDatabase } from "../../test/postgres-for-tests";
import { fillHistoryDay, insertHistorySchedules } from "../../test/history-fixtures";
import { recordAudit } from "../audit/record-audit";
import { verifyAudit } from "../audit/verify-audit";

const PARTITIONING = "20261202500000";
const adminUrl = inject("adminUrl");
const name = `vigil_upgrade_${process.pid}_${Date.now().toString(36)}`;
const url = withDatabase(adminUrl, name);

afterAll(async () => {
  await dropDatabase(adminUrl, url);
});

const COUNTED = ["runs", "attempts", "run_events", "run_logs", "audit_events", "schedules"];

async function counts(c: pg.Client): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const t of COUNTED) out[t] = Number((await c.query(`SELECT count(*)::bigint AS n FROM ${t}`)).rows[0].n);
  return out;
}

test("the previous release's database migrates to partitioned history with every row kept and the audit chain intact", async () => {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();

  const older = await migrate(url, { before: PARTITIONING });
  expect(older.length).toBeGreaterThan(5);
  expect(older.every((m) => m < PARTITIONING)).toBe(true);

  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const ids = await insertHistorySchedules(c, 3);
    for (const day of [3, 2, 1, 0]) {
      const d = (await c.query(`SELECT to_char(current_date - $1::int, 'YYYY-MM-DD') AS d`, [day])).rows[0].d;
      await fillHistoryDay(c, { day: d, scheduleIds: ids, everySeconds: 3600, logsPerRun: 2, partitioned: false });
    }
    for (let i = 0; i < 5; i++) {
      await recordAudit(c, {
        actor: { type: "system", id: null, label: "test", role: "admin" },
        action: "test.before_upgrade",
        targetType: "system",
      });
    }
    const before = await counts(c);
    expect(before.run_events).toBeGreaterThan(200);
    const maxEvent = Number((await c.query(`SELECT max(id) AS m FROM run_events`)).rows[0].m);
    const oneRun = (await c.query(`SELECT id FROM runs ORDER BY planned_at LIMIT 1`)).rows[0].id;
    const traceBefore = (await c.query(`SELECT id, type, at FROM run_events WHERE run_id = $1 ORDER BY id`, [oneRun])).rows;

    const notices: string[] = [];
    const applied = await migrate(url, { onNotice: (m) => notices.push(m) });
    expect(applied[0]).toMatch(/^20261202500000_/);
    expect(notices.some((n) => /run_events_unpartitioned → run_events: \d+ of \d+ rows/.test(n))).toBe(true);

    expect(await counts(c)).toEqual(before);
    const kind = await c.query(
      `SELECT relname, relkind FROM pg_class WHERE relname IN ('run_events', 'run_logs', 'runs') ORDER BY relname`,
    );
    expect(kind.rows).toEqual([
      { relname: "run_events", relkind: "p" },
      { relname: "run_logs", relkind: "p" },
      { relname: "runs", relkind: "r" },
    ]);
    // Rows sit in the partition of their UTC day; one run's trace reads back unchanged.
    const misplaced = await c.query(`SELECT count(*)::int AS n FROM run_events WHERE day <> (at AT TIME ZONE 'UTC')::date`);
    expect(misplaced.rows[0].n).toBe(0);
    expect((await c.query(`SELECT id, type, at FROM run_events WHERE run_id = $1 ORDER BY id`, [oneRun])).rows).toEqual(traceBefore);
    // The sequence continues: a new event gets a fresh id in today's partition.
    const next = await c.query(
      `INSERT INTO run_events (run_id, type) VALUES ($1, 'after_upgrade') RETURNING id, day = current_date AS today`,
      [oneRun],
    );
    expect(Number(next.rows[0].id)).toBeGreaterThan(maxEvent);
    expect(next.rows[0].today).toBe(true);

    const v = await verifyAudit(c);
    expect(v).toMatchObject({ ok: true, checked: before.audit_events });
  } finally {
    await c.end();
  }
});
