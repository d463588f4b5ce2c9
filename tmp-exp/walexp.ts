import pg from "pg";
import { startTestPostgres, cloneTemplate } from "../test/postgres-for-tests";
const server = await startTestPostgres({ durable: true });
try {
  const url = await cloneTemplate(server.adminUrl, "walexp");
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  const { fillHistoryDay, insertHistorySchedules } = await import("../test/history-fixtures");
  const { ensurePartitionDays } = await import("../core/retention/ensure-partitions");
  const ids = await insertHistorySchedules(c, 200, "w");
  const days = (await c.query(`SELECT to_char(current_date - i, 'YYYY-MM-DD') AS d FROM generate_series(4, 1, -1) i`)).rows.map((r) => r.d);
  for (const t of ["run_events", "run_logs"] as const) await ensurePartitionDays(c, t, days);
  for (const d of days) await fillHistoryDay(c, { day: d, scheduleIds: ids, everySeconds: 150, partitioned: true });
  await c.query("VACUUM ANALYZE runs, attempts");
  const today = (await c.query(`SELECT to_char(current_date, 'YYYY-MM-DD') AS d`)).rows[0].d;
  const { expireRuns } = await import("../core/retention/expire-runs");
  for (const [i, comp] of ["off", "pglz", "off", "pglz"].entries()) {
    await c.query(`SET wal_compression = ${comp}`);
    await c.query("CHECKPOINT");
    const a = (await c.query(`SELECT pg_current_wal_lsn() AS l`)).rows[0].l;
    const t0 = performance.now();
    const r = await expireRuns(c, { defaultDays: 4 - i, batchSize: 5000, summarizedBefore: today });
    const ms = performance.now() - t0;
    const wal = Number((await c.query(`SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1)::bigint AS b`, [a])).rows[0].b);
    console.log(`wal_compression=${comp}: ${r.runs} runs in ${ms.toFixed(0)} ms, WAL ${(wal / 1048576).toFixed(1)} MB, ${(wal / r.runs).toFixed(0)} B/run`);
  }
  await c.end();
} finally {
  await server.stop();
}
