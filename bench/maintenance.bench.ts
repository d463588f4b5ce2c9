// Maintenance mode at scale: pause every schedule in one action and resume them with the
// combined misfire dry run first, at 1,000 schedules. Each schedule holds one queued run when paused, and the
// pause is made to have lasted 10 minutes before the resume, so the resume plans 20 fires per schedule (every
// 30 s) and settles them by the schedule's misfire policy (skip, run_once, catch_up of 3, in turn).
// Prints the median of the dry runs (rolled back, so repeatable) against, in the same run, the same work done one
// schedule at a time (as the action did before; for a resume on MAINTENANCE_ONE_BY_ONE (100) schedules, scaled), the
// time of the real action, and checks the audit chain is still whole afterwards.
// `npm run bench -- maintenance`; MAINTENANCE_SCHEDULES (1000) and MAINTENANCE_SAMPLES (3) size it.
import fs from "node:fs";
import pg from "pg";
import { percentile } from "./lib/stats";
import { runBenchWhenMain } from "./lib/main";

export default async function maintenanceBench(): Promise<void> {
  const say = (line: string) => process.stdout.write(`[maintenance.bench] ${line}\n`);
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error("run through `npm run bench -- maintenance` (it provides DATABASE_URL)");
  const count = Number(process.env.MAINTENANCE_SCHEDULES ?? 1000);
  const samples = Number(process.env.MAINTENANCE_SAMPLES ?? 3);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const { maintenanceAction } = await import("../core/schedules/maintenance");
  const { closePool } = await import("../core/db/pool");
  const actor = { type: "user" as const, id: null, label: "bench@example.com", role: "operator" as const };
  const load = () => fs.readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
  const timed = async <T>(fn: () => Promise<T>): Promise<[number, T]> => {
    const t = performance.now();
    const r = await fn();
    return [performance.now() - t, r];
  };
  const median = (xs: number[]) => percentile(xs, 50);
  try {
    await client.query(
      `INSERT INTO schedules (name, handler, trigger, misfire_policy, catch_up_limit, created_at, planned_through, tags)
       SELECT 'maint-' || lpad(i::text, 5, '0'), 'demo.noop', '{"kind":"interval","everySeconds":30}',
              (ARRAY['skip', 'run_once', 'catch_up'])[1 + i % 3], 3,
              now() - interval '1 hour', date_trunc('minute', now()) - interval '10 minutes',
              CASE WHEN i % 10 = 0 THEN ARRAY['payments'] ELSE ARRAY['batch'] END
         FROM generate_series(1, $1::int) i`,
      [count],
    );
    await client.query(
      `INSERT INTO runs (schedule_id, kind, planned_at, due_at, idempotency_key, state, handler, timeout_seconds, grace_seconds)
       SELECT s.id, 'scheduled', s.planned_through, s.planned_through, s.id || ':' || s.planned_through, 'queued', 'demo.noop', 60, 5
         FROM schedules s WHERE s.name LIKE 'maint-%'`,
    );
    await client.query("VACUUM ANALYZE");
    say(`${count} schedules, one queued run each; load ${load()}`);

    const pauseDry: number[] = [];
    for (let i = 0; i < samples; i++) {
      pauseDry.push((await timed(() => maintenanceAction({ action: "pause", reason: "bench", dryRun: true }, actor)))[0]);
    }
    // The same run's baseline: the way it was done before (each schedule through the single-schedule code in turn,
    // one transaction, rolled back).
    const [oneByOnePauseMs] = await timed(() => oneByOne(url, "pause", actor, count));
    const [pauseMs, paused] = await timed(() => maintenanceAction({ action: "pause", reason: "bench" }, actor));
    say(
      `pause dry run: median ${median(pauseDry).toFixed(0)} ms over ${samples}; one schedule at a time (before): ${oneByOnePauseMs.toFixed(0)} ms, ×${(oneByOnePauseMs / median(pauseDry)).toFixed(1)}; load ${load()}`,
    );
    say(
      `pause: ${pauseMs.toFixed(0)} ms for ${paused.paused.length} schedules (${paused.paused.reduce((n, s) => n + s.held, 0)} runs held)`,
    );

    // The pause lasted 10 minutes: its fires are what the resume settles.
    await client.query(`UPDATE schedules SET paused_at = paused_at - interval '10 minutes' WHERE maintenance_id IS NOT NULL`);
    if (process.env.MAINTENANCE_PROFILE === "true") await profile(url, () => maintenanceAction, actor, say);
    const resumeDry: number[] = [];
    let preview = 0;
    for (let i = 0; i < samples; i++) {
      const [ms, r] = await timed(() => maintenanceAction({ action: "resume", dryRun: true }, actor));
      resumeDry.push(ms);
      preview = r.count;
    }
    const sample = Math.min(count, Number(process.env.MAINTENANCE_ONE_BY_ONE ?? 100));
    const [oneByOneResumeMs] = await timed(() => oneByOne(url, "resume", actor, sample));
    const perSchedule = oneByOneResumeMs / sample;
    say(
      `resume dry run: median ${median(resumeDry).toFixed(0)} ms over ${samples} (${preview} runs would start); one schedule at a time: ${perSchedule.toFixed(0)} ms per schedule over ${sample}, ≈ ${((perSchedule * count) / 1000).toFixed(1)} s for ${count}, ×${((perSchedule * count) / median(resumeDry)).toFixed(1)}; load ${load()}`,
    );
    const [resumeMs, resumed] = await timed(() => maintenanceAction({ action: "resume", reason: "bench" }, actor));
    const recorded = resumed.resumed.reduce((n, s) => n + s.recordedPaused, 0);
    say(
      `resume: ${resumeMs.toFixed(0)} ms for ${resumed.resumed.length} schedules (${resumed.count} runs enqueued, ${recorded} recorded paused); load ${load()}`,
    );
    const { rows } = await client.query(`SELECT * FROM vigil_audit_verify()`);
    say(`audit chain: ${rows[0].broken_id ? `BROKEN at ${rows[0].broken_id}: ${rows[0].problem}` : `whole (${rows[0].checked} rows)`}`);
  } finally {
    await client.end();
    await closePool();
  }
}

/**
 * Pauses (or resumes) the first `n` maintenance schedules one at a time through pauseInTransaction /
 * resumeInTransaction in one transaction, rolled back: the per-schedule statements the maintenance action used to run.
 * (resumeInTransaction is now the set-based code called with one schedule: the same statements per schedule.)
 */
async function oneByOne(url: string, action: "pause" | "resume", actor: Actor, n: number): Promise<void> {
  const { pauseInTransaction } = await import("../core/schedules/pause-schedule");
  const { resumeInTransaction } = await import("../core/schedules/resume-schedule");
  const { SCHEDULE_COLUMNS, toSchedule } = await import("../core/schedules/schedule-record");
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query("BEGIN");
    const { rows } = await c.query(
      `SELECT ${SCHEDULE_COLUMNS} FROM schedules s WHERE s.name LIKE 'maint-%' ORDER BY s.name LIMIT $1 FOR UPDATE OF s`,
      [n],
    );
    for (const s of rows.map(toSchedule)) {
      if (action === "pause") await pauseInTransaction(c, s, { reason: "maintenance: bench", until: null }, actor);
      else await resumeInTransaction(c, s, actor);
    }
  } finally {
    await c.query("ROLLBACK");
    await c.end();
  }
}

type Actor = Parameters<typeof import("../core/schedules/maintenance").maintenanceAction>[1];

/** MAINTENANCE_PROFILE=true: one resume dry run with each statement's time (the slowest first). */
async function profile(
  url: string,
  action: () => typeof import("../core/schedules/maintenance").maintenanceAction,
  actor: Parameters<typeof import("../core/schedules/maintenance").maintenanceAction>[1],
  say: (line: string) => void,
): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  const times: [number, string][] = [];
  const db = {
    query: async (text: string, values?: unknown[]) => {
      const t = performance.now();
      const r = await c.query(text, values);
      times.push([performance.now() - t, text.replace(/\s+/g, " ").slice(0, 140)]);
      return r;
    },
  };
  await c.query("BEGIN");
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  await action()({ action: "resume", dryRun: true }, actor, { db: db as any });
  await c.query("ROLLBACK");
  await c.end();
  for (const [ms, text] of times.sort((a, b) => b[0] - a[0]).slice(0, 8)) say(`  ${ms.toFixed(0)} ms  ${text}`);
}

runBenchWhenMain(import.meta.url, "maintenance.bench", () => maintenanceBench());
