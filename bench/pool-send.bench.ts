// What worker pools cost the enqueue path. Since pools, every send looks up its run's team's pool
// (core/queue/worker-pool.ts findRunPools) to pick the queue: one extra statement per sendRunJob (a trigger, retry or
// re-run) and one per sendRunJobs batch (the planner). This bench sends N runs' jobs both ways, in alternating rounds:
//   - single sends, each in its own transaction (BEGIN, the run's UPDATE … RETURNING, send, COMMIT) as a re-run, a wake or
//     a retry does: before pools (no lookup: the queue from the handler alone), with sendRunJob's own lookup (one
//     statement more), and with the pool folded into the run's UPDATE … RETURNING (runPoolSql, passed as `pool`);
//   - the planner's batch form (sendRunJobs, N jobs in one transaction), and the same without the lookup;
// for a team without a pool and for a team with one. Printed: median µs per job and the ratio with / without.
// `npm run bench -- pool-send` (BENCH_POOL_SEND_RUNS=1000, 5 rounds).
import os from "node:os";
import pg from "pg";
import type { PgBoss } from "pg-boss";
import { startTestBoss, insertSchedule } from "../test/run-fixtures";
import { DUE_CHANNEL, dueNotice, runJobOptions, sendRunJob, sendRunJobs } from "../core/queue/send-run-job";
import { ensureRunQueues, runQueueFor } from "../core/queue/boss";
import { runPoolSql } from "../core/queue/worker-pool";
import type { Queryable } from "../core/db/pool";
import { runBenchWhenMain } from "./lib/main";

const N = Number(process.env.BENCH_POOL_SEND_RUNS ?? 1000);
const ROUNDS = 5;
const say = (line: string) => process.stdout.write(`[pool-send.bench] ${line}\n`);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

interface Run {
  id: string;
  handler: string;
  due_at: Date;
}

/** The bench's runs' job: due at its due time, a 90 s timeout and 30 s grace. */
function jobOf(r: Run) {
  return { runId: r.id, attempt: 1, handler: r.handler, dueAt: r.due_at, timeoutSeconds: 90, graceSeconds: 30 };
}

/** sendRunJob before pools: the queue from the handler alone, no lookup. */
async function sendWithoutLookup(tx: Queryable, boss: PgBoss, r: Run): Promise<void> {
  await ensureRunQueues(boss, [r.handler]);
  const { data, ...options } = runJobOptions(jobOf(r));
  await boss.send(runQueueFor(r.handler), data, {
    ...options,
    db: { executeSql: async (text: string, values?: unknown[]) => tx.query(text, values as unknown[]) },
  });
  await tx.query("SELECT pg_notify($1, $2)", [DUE_CHANNEL, dueNotice(r.due_at, r.handler)]);
}

/** sendRunJobs before pools: one insert per handler, one NOTIFY per due time. */
async function sendBatchWithoutLookup(tx: Queryable, boss: PgBoss, runs: Run[]): Promise<void> {
  await ensureRunQueues(boss, [runs[0]!.handler]);
  await boss.insert(
    runQueueFor(runs[0]!.handler),
    runs.map((r) => runJobOptions(jobOf(r))),
    { db: { executeSql: async (text: string, values?: unknown[]) => tx.query(text, values as unknown[]) } },
  );
  const notices = [...new Set(runs.map((r) => dueNotice(r.due_at, r.handler)))];
  await tx.query(`SELECT pg_notify($1, t) FROM unnest($2::text[]) AS t`, [DUE_CHANNEL, notices]);
}

async function inTx(pool: pg.Pool, f: (c: pg.PoolClient) => Promise<void>): Promise<void> {
  const c = await pool.connect();
  try {
    await c.query("BEGIN");
    await f(c);
    await c.query("COMMIT");
  } finally {
    c.release();
  }
}

async function newRuns(pool: pg.Pool, scheduleId: string): Promise<Run[]> {
  const { rows } = await pool.query<Run>(
    `INSERT INTO runs (schedule_id, kind, planned_at, due_at, idempotency_key, state, handler, payload, timeout_seconds, grace_seconds,
                       max_attempts, enqueued_at)
     SELECT s.id, 'manual', t, t, 'manual:' || s.id || ':' || gen_random_uuid(), 'queued', s.handler, s.payload, 60, 5, 1, clock_timestamp()
       FROM schedules s, generate_series(1, $2::int) g, LATERAL (SELECT date_trunc('milliseconds', clock_timestamp()) + interval '1 hour' AS t) x
      WHERE s.id = $1
     RETURNING id, handler, due_at`,
    [scheduleId, N],
  );
  return rows;
}

export default async function poolSendBench(): Promise<void> {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error("DATABASE_URL is not set (run it with `npm run bench -- pool-send`)");
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  const boss = await startTestBoss(url);
  try {
    const { rows: t } = await pool.query<{ id: string }>(
      `INSERT INTO teams (name, worker_pool) VALUES ('bench-pooled', 'bench') RETURNING id`,
    );
    const plain = await insertSchedule(pool, { handler: "demo.noop" });
    const pooled = await insertSchedule(pool, { handler: "demo.noop" });
    await pool.query(`UPDATE schedules SET team_id = $2 WHERE id = $1`, [pooled, t[0]!.id]);
    const variants = [
      { label: "single, before pools (no lookup)", schedule: plain, batch: false, lookup: false, folded: false },
      { label: "single, own lookup, no pool", schedule: plain, batch: false, lookup: true, folded: false },
      { label: "single, own lookup, pool", schedule: pooled, batch: false, lookup: true, folded: false },
      { label: "single, folded, no pool", schedule: plain, batch: false, lookup: true, folded: true },
      { label: "single, folded, pool", schedule: pooled, batch: false, lookup: true, folded: true },
      { label: "batch, before pools (no lookup)", schedule: plain, batch: true, lookup: false, folded: false },
      { label: "batch, team without a pool", schedule: plain, batch: true, lookup: true, folded: false },
      { label: "batch, team with a pool", schedule: pooled, batch: true, lookup: true, folded: false },
    ];
    const times = new Map(variants.map((v) => [v.label, [] as number[]]));
    // One warm-up round (queues created, plans cached), then the measured rounds, variants alternating.
    for (let r = -1; r < ROUNDS; r++) {
      for (const v of variants) {
        const runs = await newRuns(pool, v.schedule);
        const t0 = performance.now();
        if (v.batch) {
          await inTx(pool, (c) =>
            v.lookup
              ? sendRunJobs(
                  c,
                  boss,
                  runs.map((x) => ({ ...jobOf(x), wake: 0 })),
                )
              : sendBatchWithoutLookup(c, boss, runs),
          );
        } else {
          for (const x of runs) {
            await inTx(pool, async (c) => {
              // The run's own statement, as a re-run / wake / retry has before its send; folded: it returns the pool too.
              const { rows: u } = await c.query<{ pool: string | null }>(
                `UPDATE runs SET updated_at = clock_timestamp() WHERE id = $1 RETURNING ${v.folded ? runPoolSql("runs.schedule_id") : "NULL::text"} AS pool`,
                [x.id],
              );
              const job = jobOf(x);
              if (v.folded) await sendRunJob(c, boss, { ...job, pool: u[0]!.pool });
              else if (v.lookup) await sendRunJob(c, boss, job);
              else await sendWithoutLookup(c, boss, x);
            });
          }
        }
        if (r >= 0) times.get(v.label)!.push(((performance.now() - t0) * 1000) / N);
      }
    }
    const { rows: q } = await pool.query<{ name: string; n: number }>(
      `SELECT name, count(*)::int AS n FROM pgboss.job WHERE name LIKE 'vigil-run.demo.noop%' GROUP BY name ORDER BY name`,
    );
    say(
      `${N} jobs per variant and round, ${ROUNDS} rounds, median µs per job (load ${os
        .loadavg()
        .map((x) => x.toFixed(1))
        .join(" ")})`,
    );
    const base = { single: median(times.get(variants[0]!.label)!), batch: median(times.get(variants[5]!.label)!) };
    for (const v of variants) {
      const m = median(times.get(v.label)!);
      const ratio = m / (v.batch ? base.batch : base.single);
      say(`${v.label.padEnd(36)} ${m.toFixed(1).padStart(8)} µs/job   ×${ratio.toFixed(2)} of before pools`);
    }
    say(`queues: ${q.map((x) => `${x.name} ${x.n}`).join(", ")}`);
  } finally {
    await boss.stop({ graceful: false });
    await pool.end();
  }
}

runBenchWhenMain(import.meta.url, "pool-send.bench", poolSendBench);
