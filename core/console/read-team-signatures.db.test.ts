// The change feed's per-team read (readTeamSignatures): what it costs at 1,000 schedules in 10 teams with 10,000
// unfinished runs (it runs once per named team topic, at most once per topic window), and that a change in one
// team's rows changes that team's signature alone.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { useTestDatabase } from "@/test/db";
import { TEAM_TOPICS } from "./change-topics";
import { readTeamSignatures } from "./read-change-signatures";

const db = useTestDatabase("read_team_signatures");
let pool: pg.Pool;
let teams: string[];

beforeAll(async () => {
  pool = new pg.Pool({ connectionString: db.url, max: 2 });
  const { rows } = await pool.query<{ id: string }>(
    `INSERT INTO teams (name) SELECT 'sig-team-' || i FROM generate_series(1, 10) i RETURNING id`,
  );
  teams = rows.map((r) => r.id);
  await pool.query(
    `INSERT INTO schedules (name, handler, trigger, team_id)
     SELECT 'sig-' || i, 'demo.noop', '{"kind":"once","at":"2099-01-01T00:00:00Z"}', ($1::uuid[])[1 + i % 10]
       FROM generate_series(1, 1000) i`,
    [teams],
  );
  // 10 unfinished runs per schedule (planned, queued, running, retrying), and one finished run each (its last run).
  await pool.query(
    `INSERT INTO runs (schedule_id, kind, planned_at, due_at, idempotency_key, state, handler, timeout_seconds, grace_seconds, started_at)
     SELECT s.id, 'manual', t, t, 'sig:' || s.id || ':' || n, st, 'demo.noop', 60, 5, CASE WHEN st = 'running' THEN t END
       FROM schedules s, generate_series(1, 10) n,
            LATERAL (SELECT clock_timestamp() + make_interval(mins => n) AS t,
                            (ARRAY['planned', 'queued', 'running', 'retrying'])[1 + n % 4] AS st) x
      WHERE s.name LIKE 'sig-%'`,
  );
  // And 40 finished runs each (the unfinished ones are a small part of a real runs table).
  await pool.query(
    `INSERT INTO runs (schedule_id, kind, planned_at, due_at, idempotency_key, state, handler, timeout_seconds, grace_seconds,
                       started_at, finished_at)
     SELECT s.id, 'manual', t, t, 'sig-done:' || s.id || ':' || n, 'succeeded', 'demo.noop', 60, 5, t, t
       FROM schedules s, generate_series(1, 40) n, LATERAL (SELECT clock_timestamp() - make_interval(mins => n) AS t) x
      WHERE s.name LIKE 'sig-%'`,
  );
  await pool.query(`ANALYZE runs; ANALYZE schedules; ANALYZE schedule_last_runs`);
}, 120_000);

afterAll(async () => {
  await pool?.end();
});

describe("the change feed's per-team read", () => {
  it("at 1,000 schedules and 10,000 unfinished runs: one statement, a few tens of ms", async () => {
    const { rows } = await pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM runs WHERE state IN ('planned', 'queued', 'running', 'retrying')`,
    );
    expect(rows[0]!.n).toBe(10_000);
    const c = await pool.connect();
    try {
      await readTeamSignatures(c, TEAM_TOPICS); // warm
      const times: Record<string, number[]> = {};
      for (const topics of [TEAM_TOPICS, ["runs"], ["schedules"], ["attention"], ["alerts"]] as const) {
        const key = topics.join("+");
        for (let i = 0; i < 5; i++) {
          const started = performance.now();
          await readTeamSignatures(c, topics);
          (times[key] ??= []).push(performance.now() - started);
        }
      }
      const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
      const report = Object.entries(times).map(([k, xs]) => `${k}: ${median(xs).toFixed(1)} ms`);
      console.info(`readTeamSignatures at 1,000 schedules / 10 teams / 10,000 unfinished runs (median of 5): ${report.join(", ")}`);
      // Bounded well below a feed tick even on a loaded machine.
      expect(median(times[TEAM_TOPICS.join("+")]!)).toBeLessThan(500);
    } finally {
      c.release();
    }
  });

  it("a change in one team's run, schedule or alert changes that team's signature alone", async () => {
    const before = await readTeamSignatures(pool, TEAM_TOPICS);
    expect(before.get("runs")!.size).toBe(10);
    const team = teams[3]!;
    await pool.query(
      `UPDATE runs SET state = 'running', started_at = clock_timestamp()
        WHERE id = (SELECT r.id FROM runs r JOIN schedules s ON s.id = r.schedule_id
                     WHERE s.team_id = $1 AND r.state = 'planned' LIMIT 1)`,
      [team],
    );
    await pool.query(
      `UPDATE schedules SET paused_at = clock_timestamp(), paused_by = 'test' WHERE id = (SELECT id FROM schedules WHERE team_id = $1 LIMIT 1)`,
      [team],
    );
    await pool.query(
      `INSERT INTO alerts (kind, schedule_id, dedupe_key, message) SELECT 'missed', id, 'sig-alert', 'test' FROM schedules WHERE team_id = $1 LIMIT 1`,
      [team],
    );
    const after = await readTeamSignatures(pool, TEAM_TOPICS);
    for (const topic of ["runs", "schedules", "alerts"] as const) {
      const b = before.get(topic)!;
      const a = after.get(topic)!;
      const changed = [...new Set([...b.keys(), ...a.keys()])].filter((k) => b.get(k) !== a.get(k));
      expect(changed, topic).toEqual([team]);
    }
    // An alert about no schedule is every subscriber's.
    await pool.query(`INSERT INTO alerts (kind, dedupe_key, message) VALUES ('no_worker', 'sig-no-worker', 'test')`);
    expect((await readTeamSignatures(pool, ["alerts"])).get("alerts")!.has("*")).toBe(true);
  });
});
