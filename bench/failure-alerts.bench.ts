// The "failures" alert rule at fleet size, now that every schedule alerts by default (VIGIL_ALERT_FAILURE_THRESHOLD).
// N schedules, one run a minute each for H hours; most healthy, FAIL_SHARE of them with a failed run now and then,
// 2 % on a failure streak over the last 10 minutes (they alert), 1 % that failed and then recovered (a streak that
// clears). Times the rule as it runs (core/alerts/condition-alert-rules.ts evaluateFailureStreaks: candidates from
// runs_state_planned_idx plus open failures alerts) against the same rule without the candidate prefilter (two
// LATERAL reads of runs for every schedule: what the default would cost with the old query), as medians of
// interleaved runs in one process, and prints the plan of the new query.
// `npm run bench -- failure-alerts`; knobs: VIGIL_BENCH_SCHEDULES (1000), VIGIL_BENCH_HOURS (5), VIGIL_BENCH_FAIL_SHARE (0.1).
import os from "node:os";
import pg from "pg";
import { cloneTemplate, startTestPostgres } from "../test/postgres-for-tests";
import { median } from "./lib/stats";
import { runBenchWhenMain } from "./lib/main";

const ROUNDS = 9;

/** The rule before the prefilter, with the default applied: every live schedule gets the rule's two LATERAL reads. */
const unfilteredSql = (reads: string) => `
  SELECT s.id AS schedule_id, s.name, coalesce(s.failure_alert_threshold, $1::int) AS threshold, ok.at AS last_success_at,
         f.streak, f.last_run_id, f.last_error, f.last_state
    FROM schedules s
    ${reads}
   WHERE s.deleted_at IS NULL AND coalesce(s.failure_alert_threshold, $1::int) > 0`;

export default async function failureAlertsBench(
  schedules = Number(process.env.VIGIL_BENCH_SCHEDULES ?? 1000),
  hours = Number(process.env.VIGIL_BENCH_HOURS ?? 5),
  failShare = Number(process.env.VIGIL_BENCH_FAIL_SHARE ?? 0.1),
): Promise<void> {
  const say = (line: string) => process.stdout.write(`[failure-alerts.bench] ${line}\n`);
  const server = await startTestPostgres({ durable: true });
  const url = await cloneTemplate(server.adminUrl, "bench_failure_alerts");
  process.env.DATABASE_URL = url;
  const { closePool, getPool } = await import("../core/db/pool");
  const { evaluateFailureStreaks, FAILURE_STREAKS_SQL, FAILURE_STREAK_READS_SQL } = await import("../core/alerts/condition-alert-rules");
  const UNFILTERED_SQL = unfilteredSql(FAILURE_STREAK_READS_SQL);
  const { upsertAlerts } = await import("../core/alerts/upsert-alerts");
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const perSchedule = hours * 60;
    say(
      `${schedules} schedules × ${perSchedule} runs = ${(schedules * perSchedule).toLocaleString("en")} runs; ${failShare * 100} % flaky`,
    );
    let t0 = performance.now();
    await client.query(
      `INSERT INTO schedules (name, handler, trigger) SELECT 'bench-' || g, 'demo.sleep', '{"kind":"interval","everySeconds":60}'
         FROM generate_series(1, $1::int) g`,
      [schedules],
    );
    // Per schedule (by its number g): g % 100 < 2 fails its last 10 runs (a streak: alerts); g % 100 = 2 failed 10 runs
    // and then succeeded the last 3 (clears); the next failShare of them fail every 13th run; the rest never fail.
    await client.query(
      `INSERT INTO runs (schedule_id, kind, planned_at, due_at, idempotency_key, state, handler, timeout_seconds, grace_seconds,
                         attempt, started_at, finished_at, lateness_ms, duration_ms, error)
       SELECT s.id, 'scheduled', p.planned, p.planned, s.id || ':' || m, x.state, 'demo.sleep', 60, 5, 1,
              p.planned + interval '5 milliseconds', p.planned + interval '805 milliseconds', 5, 800,
              CASE WHEN x.state = 'succeeded' THEN NULL ELSE 'upstream refused' END
         FROM (SELECT id, substring(name FROM 7)::int AS g FROM schedules) s
        CROSS JOIN generate_series(1, $1::int) m
        CROSS JOIN LATERAL (SELECT date_trunc('minute', now()) - m * interval '1 minute' AS planned) p
        CROSS JOIN LATERAL (SELECT CASE
            WHEN s.g % 100 < 2 AND m <= 10 THEN (ARRAY['failed', 'timed_out', 'zombie'])[1 + m % 3]
            WHEN s.g % 100 = 2 AND m BETWEEN 4 AND 13 THEN 'failed'
            WHEN (s.g % 100) >= 3 AND (s.g % 100) < 3 + $2::float * 100 AND m % 13 = 0 THEN 'failed'
            ELSE 'succeeded' END AS state) x`,
      [perSchedule, failShare],
    );
    say(`inserted in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    await client.query("VACUUM ANALYZE");
    const pool = getPool();

    // Open the alerts of the streaks once, and an alert for the recovered ones (opened while they were failing).
    const first = await evaluateFailureStreaks(pool, 3);
    await upsertAlerts(pool, first.firing);
    await client.query(
      `INSERT INTO alerts (kind, schedule_id, dedupe_key, severity, message, data)
       SELECT 'failures', id, 'failures:' || id, 'critical', 'was failing', '{}' FROM schedules WHERE substring(name FROM 7)::int % 100 = 2`,
    );
    const check = await evaluateFailureStreaks(pool, 3);
    const unfiltered = await client.query(UNFILTERED_SQL, [3]);
    const firingUnfiltered = unfiltered.rows.filter((r) => r.streak >= r.threshold).length;
    say(
      `rule: ${check.firing.length} firing, ${check.clear.length} clearing (without the prefilter: ${firingUnfiltered} firing of ${unfiltered.rowCount} schedules read)`,
    );

    const viaClient = await client.query(FAILURE_STREAKS_SQL, [3]);
    say(`the rule's statement on the bench's own connection: ${viaClient.rowCount} schedules read`);
    if (check.firing.length !== firingUnfiltered) {
      const { rows: now } = await client.query(`SELECT now() AS db_now, (SELECT max(planned_at) FROM runs) AS newest`);
      throw new Error(
        `the prefiltered rule disagrees with the unfiltered one: ${check.firing.length} vs ${firingUnfiltered} firing (${JSON.stringify(now[0])})`,
      );
    }
    const filtered: number[] = [];
    const plain: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      t0 = performance.now();
      await evaluateFailureStreaks(pool, 3);
      filtered.push(performance.now() - t0);
      t0 = performance.now();
      await client.query(UNFILTERED_SQL, [3]);
      plain.push(performance.now() - t0);
    }
    const load = os.loadavg().map((l) => l.toFixed(1));
    say(
      `evaluateFailureStreaks, median of ${ROUNDS}: prefiltered ${median(filtered).toFixed(1)} ms, every schedule read ${median(plain).toFixed(1)} ms ` +
        `(×${(median(filtered) / median(plain)).toFixed(2)}); load ${load.join(" ")}`,
    );

    const { rows: plan } = await client.query(`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${FAILURE_STREAKS_SQL}`, [3]);
    say(`plan of the rule:\n${plan.map((r) => `    ${r["QUERY PLAN"]}`).join("\n")}`);
    await closePool();
  } finally {
    await client.end();
    await server.stop();
  }
}

runBenchWhenMain(import.meta.url, "failure-alerts.bench", () => failureAlertsBench());
