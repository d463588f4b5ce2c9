// Seeded history the way e2e/timeline-perf.spec.ts seeds it: paused cron schedules (the planner and dispatcher
// leave them alone) with one occurrence a minute from `hours` ago to `aheadHours` ahead — past ones mostly
// succeeded (some late, failed, hollow, missed, timed out, skipped), future ones planned — in bulk SQL.
import type pg from "pg";

export async function seedScheduleHistory(
  c: pg.Client | pg.Pool,
  opts: { prefix: string; schedules: number; hours: number; aheadHours?: number; first?: number },
): Promise<{ ids: string[]; runs: number }> {
  const first = opts.first ?? 1;
  const { rows } = await c.query(
    `INSERT INTO schedules (name, handler, trigger, paused_at, paused_by, pause_reason, planned_through, tags)
     SELECT $1 || lpad(i::text, 5, '0'), CASE WHEN i % 7 = 0 THEN 'http.request' ELSE 'demo.noop' END,
            '{"kind":"cron","cron":"* * * * *","timezone":"UTC"}', clock_timestamp(), 'benchmark', 'seeded history',
            clock_timestamp() + interval '7 days', CASE WHEN i % 10 = 0 THEN ARRAY['payments'] ELSE ARRAY['batch'] END
       FROM generate_series($2::int, $3::int) i
     RETURNING id`,
    [opts.prefix, first, first + opts.schedules - 1],
  );
  const ids = rows.map((r) => r.id as string);
  let runs = 0;
  // In slices of 100 schedules: one statement over 1,000 × 7 h would hold 420 k rows in a single transition table.
  for (let i = 0; i < ids.length; i += 100) {
    const slice = ids.slice(i, i + 100);
    const { rowCount } = await c.query(
      `WITH base AS (
         SELECT s.id AS schedule_id, t AS planned_at, t > now() AS future, (abs(hashtext(s.id::text || t::text)) % 100) AS roll
           FROM unnest($1::uuid[]) AS s(id)
          CROSS JOIN generate_series(date_trunc('minute', now()) - make_interval(mins => $2), date_trunc('minute', now()) + make_interval(mins => $3),
                                     interval '1 minute') t
       ), shaped AS (
         SELECT *, CASE WHEN future THEN 'planned'
                        WHEN roll < 80 THEN 'succeeded' WHEN roll < 85 THEN 'failed' WHEN roll < 88 THEN 'hollow'
                        WHEN roll < 91 THEN 'missed' WHEN roll < 93 THEN 'timed_out' WHEN roll < 96 THEN 'skipped_overlap'
                        ELSE 'succeeded' END AS state,
                   CASE WHEN roll >= 96 THEN 20000 + roll * 300 ELSE roll * 7 END AS lateness
           FROM base
       )
       INSERT INTO runs (schedule_id, kind, planned_at, due_at, idempotency_key, state, handler, timeout_seconds, grace_seconds,
                         attempt, started_at, finished_at, lateness_ms, duration_ms)
       SELECT schedule_id, 'scheduled', planned_at, planned_at, schedule_id || ':' || planned_at, state, 'demo.noop', 60, 5,
              CASE WHEN state IN ('planned', 'missed', 'skipped_overlap') THEN 0 ELSE 1 END,
              CASE WHEN state IN ('planned', 'missed', 'skipped_overlap') THEN NULL ELSE planned_at + make_interval(secs => lateness / 1000.0) END,
              CASE WHEN state IN ('planned', 'missed', 'skipped_overlap') THEN NULL ELSE planned_at + make_interval(secs => lateness / 1000.0 + 5 + roll % 20) END,
              CASE WHEN state IN ('planned', 'missed', 'skipped_overlap') THEN NULL ELSE lateness END,
              CASE WHEN state IN ('planned', 'missed', 'skipped_overlap') THEN NULL ELSE (5 + roll % 20) * 1000 END
         FROM shaped`,
      [slice, Math.round(opts.hours * 60), Math.round((opts.aheadHours ?? 1) * 60)],
    );
    runs += rowCount ?? 0;
    await c.query(
      `INSERT INTO attempts (run_id, number, state, started_at, finished_at, duration_ms)
       SELECT id, 1, state, started_at, finished_at, duration_ms FROM runs WHERE schedule_id = ANY($1::uuid[]) AND started_at IS NOT NULL`,
      [slice],
    );
  }
  return { ids, runs };
}

/**
 * Removes seeded schedules with everything they left (runs and their children, alerts raised on them), so a
 * spec's bulk history does not crowd the runs list, the header's counts or the alerts of the specs after it.
 */
export async function removeSeededSchedules(c: pg.Client | pg.Pool, prefix: string): Promise<void> {
  const { rows } = await c.query(`SELECT id FROM schedules WHERE name LIKE $1`, [`${prefix}%`]);
  const ids = rows.map((r) => r.id as string);
  if (ids.length === 0) return;
  await c.query(`DELETE FROM alerts WHERE schedule_id = ANY($1::uuid[])`, [ids]);
  await c.query(`DELETE FROM runs WHERE schedule_id = ANY($1::uuid[])`, [ids]);
  await c.query(`DELETE FROM schedules WHERE id = ANY($1::uuid[])`, [ids]);
}
